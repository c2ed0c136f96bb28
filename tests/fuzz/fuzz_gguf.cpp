// Fuzz target: what Shoehorn itself reads from an untrusted file, in its own process, before
// anything reaches llama.cpp (llama.cpp's own loading runs in the first-open helper process):
// the GGUF inspector with its checks, the projector inspector, and the image header probe.
// Built with libFuzzer by tools/fuzz.sh (clang), and replayed with random mutations by
// fuzz_gguf_replay (driver.cpp) in the test command.
#include "modelinfo.h"
#include "projector.h"

#include "backends.h"

#include <ggml.h>
#include <gguf.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

// Inputs the model inspector accepted: the replay checks that its corpus reaches the parser.
long g_fuzzAccepted = 0;

namespace {

// What a file the inspector accepted must never be: what llama.cpp asserts on with a memory-mapped
// model (tensor data off ggml's 32-byte alignment) or at the first decode (a dimension of size 0,
// a one-dimensional tensor not in F32, a weight type no CPU kernel takes: the CPU module's kernel
// table). Read with ggml's own gguf parser, independently of the inspector; a breach aborts like a crash.
void checkAccepted(const std::string &path)
{
    ggml_context *meta = nullptr;
    gguf_context *g = gguf_init_from_file(path.c_str(), gguf_init_params{true, &meta});
    if (!g)
        return; // a split part, say: nothing of it reaches llama.cpp as one file
    const size_t data = gguf_get_data_offset(g);
    for (int64_t i = 0; i < gguf_get_n_tensors(g); ++i) {
        const ggml_tensor *t = ggml_get_tensor(meta, gguf_get_tensor_name(g, i));
        const size_t at = data + gguf_get_tensor_offset(g, i);
        bool ok = at % 32 == 0 && (ggml_n_dims(t) > 1 || t->type == GGML_TYPE_F32);
        for (int d = 0; d < GGML_MAX_DIMS; ++d)
            ok = ok && t->ne[d] > 0;
        ok = ok && (t->type == GGML_TYPE_F32 || shoehorn::internal::cpuMultiplies(t->type));
        if (!ok) {
            std::fprintf(stderr, "accepted a file llama.cpp would abort on: tensor %s (%s) at byte %zu\n", t->name,
                         ggml_type_name(t->type), at);
            std::abort();
        }
    }
    gguf_free(g);
    ggml_free(meta);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The inspectors read files: give them one in memory.
    const int fd = memfd_create("fuzz-gguf", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += size_t(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (shoehorn::inspectModel(path).ok()) {
        ++g_fuzzAccepted;
        checkAccepted(path);
    }
    (void)shoehorn::inspectProjector(path);
    (void)shoehorn::probeImage(std::string(reinterpret_cast<const char *>(data), size));
    ::close(fd);
    return 0;
}
