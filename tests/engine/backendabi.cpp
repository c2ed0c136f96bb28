// The ABI check of a ggml backend module against this build's libggml-base (#28): a GPU backend
// Shoehorn does not compile itself (the Vulkan module of the same llama.cpp release, from npm)
// must load into our ggml, register a GPU device, and compute what our CPU backend computes for
// the operations a MoE model runs. A module of another ggml (another API version, a missing
// symbol, a changed tensor or op layout) fails here, before it reaches a user.
//   backendabi MODULE.so [MODULE_DIR]
// The CPU backend comes from MODULE_DIR (default: this program's directory). Exit 0: compatible.
#include <ggml-alloc.h>
#include <ggml-backend-impl.h> // GGML_BACKEND_API_VERSION
#include <ggml-backend.h>
#include <ggml.h>

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case {
    const char *name;
    // Builds the graph's output from inputs it creates in ctx (their data: random, set below).
    std::function<ggml_tensor *(ggml_context *)> build;
};

ggml_tensor *weights(ggml_context *ctx, ggml_type type, int64_t k, int64_t n, int64_t e = 1)
{
    ggml_tensor *w = e > 1 ? ggml_new_tensor_3d(ctx, type, k, n, e) : ggml_new_tensor_2d(ctx, type, k, n);
    ggml_set_name(w, "w");
    return w;
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    // The weight types of Q4_K_M files (and F16): on lavapipe each kernel is compiled at first use
    // (a minute or two per type on 2 cores, then from Mesa's shader cache), so the list is short.
    for (ggml_type t : {GGML_TYPE_F16, GGML_TYPE_Q4_K, GGML_TYPE_Q6_K})
        out.push_back({ggml_type_name(t), [t](ggml_context *ctx) {
                           return ggml_mul_mat(ctx, weights(ctx, t, 256, 64), ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 256, 8));
                       }});
    out.push_back({"mul_mat_id q4_K (experts)", [](ggml_context *ctx) {
                       ggml_tensor *ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 8);
                       ggml_set_name(ids, "ids");
                       return ggml_mul_mat_id(ctx, weights(ctx, GGML_TYPE_Q4_K, 256, 64, 4),
                                              ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 256, 2, 8), ids);
                   }});
    out.push_back({"rms_norm, mul, add, silu", [](ggml_context *ctx) {
                       ggml_tensor *x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 128, 8);
                       ggml_tensor *w = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 128);
                       return ggml_silu(ctx, ggml_add(ctx, ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-6f), w), x));
                   }});
    out.push_back({"soft_max", [](ggml_context *ctx) {
                       return ggml_soft_max_ext(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 8), nullptr, 0.5f, 0.0f);
                   }});
    out.push_back({"rope", [](ggml_context *ctx) {
                       ggml_tensor *pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 8);
                       ggml_set_name(pos, "pos");
                       return ggml_rope_ext(ctx, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 64, 2, 8), pos, nullptr, 64,
                                            GGML_ROPE_TYPE_NEOX, 4096, 10000.0f, 1.0f, 0.0f, 1.0f, 32.0f, 1.0f);
                   }});
    out.push_back({"get_rows f16", [](ggml_context *ctx) {
                       ggml_tensor *rows = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, 5);
                       ggml_set_name(rows, "ids");
                       return ggml_get_rows(ctx, ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 128, 32), rows);
                   }});
    return out;
}

// Deterministic inputs: indices in range, quantized weights from the same floats.
void fill(ggml_tensor *t, uint32_t seed)
{
    std::mt19937 rng(seed);
    const int64_t n = ggml_nelements(t);
    if (t->type == GGML_TYPE_I32) {
        std::vector<int32_t> v(n);
        const std::string name = ggml_get_name(t);
        for (int64_t i = 0; i < n; ++i)
            v[i] = name == "pos" ? int32_t(i * 3) : name == "ids" && t->ne[0] == 2 ? int32_t((i * 3 + i / 2) % 4)
                                                                                  : int32_t((i * 7) % 32);
        ggml_backend_tensor_set(t, v.data(), 0, n * sizeof(int32_t));
        return;
    }
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> f(n);
    for (auto &x : f)
        x = d(rng);
    if (t->type == GGML_TYPE_F32) {
        ggml_backend_tensor_set(t, f.data(), 0, n * sizeof(float));
        return;
    }
    std::vector<uint8_t> q(ggml_nbytes(t));
    ggml_quantize_chunk(t->type, f.data(), q.data(), 0, n / t->ne[0], t->ne[0], nullptr);
    ggml_backend_tensor_set(t, q.data(), 0, q.size());
}

// Runs one case on a backend; empty when the backend does not take one of its operations.
std::vector<float> run(const Case &c, ggml_backend_t backend, bool &supported)
{
    ggml_init_params p{64 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true};
    ggml_context *ctx = ggml_init(p);
    ggml_tensor *out = c.build(ctx);
    ggml_cgraph *graph = ggml_new_graph(ctx);
    ggml_build_forward_expand(graph, out);
    supported = true;
    for (int i = 0; i < ggml_graph_n_nodes(graph); ++i)
        supported = supported && ggml_backend_supports_op(backend, ggml_graph_node(graph, i));
    std::vector<float> result;
    if (supported) {
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, backend);
        uint32_t seed = 1;
        for (ggml_tensor *t = ggml_get_first_tensor(ctx); t; t = ggml_get_next_tensor(ctx, t))
            if (t->op == GGML_OP_NONE)
                fill(t, seed++);
        if (ggml_backend_graph_compute(backend, graph) == GGML_STATUS_SUCCESS) {
            result.resize(ggml_nelements(out));
            ggml_backend_tensor_get(out, result.data(), 0, result.size() * sizeof(float));
        }
        ggml_backend_buffer_free(buf);
    }
    ggml_free(ctx);
    return result;
}

double nmse(const std::vector<float> &ref, const std::vector<float> &got)
{
    double err = 0, norm = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(got[i]))
            return INFINITY;
        err += (ref[i] - got[i]) * double(ref[i] - got[i]);
        norm += double(ref[i]) * ref[i];
    }
    return norm > 0 ? err / norm : err;
}

std::string loaderReason(const char *path)
{
    if (void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
        const bool hasInit = dlsym(h, "ggml_backend_init") != nullptr;
        dlclose(h);
        return hasInit ? "its ggml_backend_init returned nothing or another backend API version than this ggml's ("
                             + std::to_string(GGML_BACKEND_API_VERSION) + ")"
                       : "it exports no ggml_backend_init (not a ggml backend module)";
    }
    const char *e = dlerror();
    return e ? e : "dlopen failed";
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODULE.so [MODULE_DIR]\n", argv[0]);
        return 2;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // each line as it comes (ctest, a slow driver)
    const std::string dir = argc > 2 ? argv[2] : std::filesystem::read_symlink("/proc/self/exe").parent_path().string();
    std::printf("this ggml: %s (%s), backend API %d\n", ggml_version(), ggml_commit(), GGML_BACKEND_API_VERSION);
    ggml_backend_load_all_from_path(dir.c_str());
    ggml_backend_dev_t cpuDev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!cpuDev) {
        std::printf("FAIL: no CPU backend in %s\n", dir.c_str());
        return 1;
    }
    ggml_backend_reg_t reg = ggml_backend_load(argv[1]);
    if (!reg) {
        std::printf("FAIL: %s does not load into this ggml: %s\n", argv[1], loaderReason(argv[1]).c_str());
        return 1;
    }
    ggml_backend_dev_t dev = nullptr;
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg) && !dev; ++i) {
        ggml_backend_dev_t d = ggml_backend_reg_dev_get(reg, i);
        const auto type = ggml_backend_dev_type(d);
        if (type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU)
            dev = d;
    }
    if (!dev) {
        std::printf("FAIL: %s registered backend %s with no GPU device (%zu devices; is a driver there?)\n", argv[1],
                    ggml_backend_reg_name(reg), ggml_backend_reg_dev_count(reg));
        return 1;
    }
    size_t freeB = 0, totalB = 0;
    ggml_backend_dev_memory(dev, &freeB, &totalB);
    std::printf("loaded %s: %s · %s, %.0f MiB\n", ggml_backend_reg_name(reg), ggml_backend_dev_name(dev),
                ggml_backend_dev_description(dev), totalB / 1048576.0);
    ggml_backend_t gpu = ggml_backend_dev_init(dev, nullptr);
    ggml_backend_t cpu = ggml_backend_dev_init(cpuDev, nullptr);
    int failed = 0, compared = 0;
    for (const Case &c : cases()) {
        const auto t0 = std::chrono::steady_clock::now(); // the first use of a kernel compiles it
        bool onCpu = false, onGpu = false;
        const auto ref = run(c, cpu, onCpu);
        const auto got = run(c, gpu, onGpu);
        if (!onGpu) {
            std::printf("  %-28s not taken by %s (computed on the CPU there)\n", c.name, ggml_backend_dev_name(dev));
            continue;
        }
        const double e = ref.size() == got.size() && !ref.empty() ? nmse(ref, got) : INFINITY;
        const bool ok = e < 1e-3;
        std::printf("  %-28s NMSE %.2e %s (%.1f s)\n", c.name, e, ok ? "ok" : "FAIL",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        failed += !ok;
        ++compared;
    }
    ggml_backend_free(gpu);
    ggml_backend_free(cpu);
    if (compared < 6) {
        std::printf("FAIL: only %d operations compared\n", compared);
        return 1;
    }
    std::printf(failed ? "FAIL: %d operations differ from the CPU\n" : "compatible: %d operations as on the CPU\n",
                failed ? failed : compared);
    return failed ? 1 : 0;
}
