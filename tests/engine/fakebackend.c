/* Modules a user could end up with, for the loader's tests (tests/CMakeLists.txt):
 * FAKE_API: a module of another ggml, whose registry speaks another backend API version;
 * FAKE_HIJACK: a "CPU variant" left in the current directory, scoring higher than any real one;
 *   loading it runs its constructor, which leaves a file named "hijacked" there;
 * otherwise: a module built against a newer libggml-base, which needs a function ours lacks.
 * None may load. Plain C and no ggml header: what matters is only what the loader sees. */
#if defined(FAKE_HIJACK)
#include <stdio.h>

__attribute__((constructor)) static void hijack(void)
{
    FILE *f = fopen("hijacked", "w");
    if (f)
        fclose(f);
}

__attribute__((visibility("default"))) int ggml_backend_score(void)
{
    return 1 << 30;
}

__attribute__((visibility("default"))) void *ggml_backend_init(void)
{
    return 0;
}
#elif defined(FAKE_API)
static struct {
    int api_version; /* first member of ggml's struct ggml_backend_reg */
    void *iface[5];
    void *context;
} reg = {-1, {0}, 0};

__attribute__((visibility("default"))) void *ggml_backend_init(void)
{
    return &reg;
}
#else
extern void ggml_backend_from_a_newer_ggml(void);

__attribute__((visibility("default"))) void *ggml_backend_init(void)
{
    ggml_backend_from_a_newer_ggml();
    return 0;
}
#endif
