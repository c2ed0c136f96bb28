#include "llamaparams.h"

#include "backends.h"
#include "devices.h"
#include "model.h"

#include <ggml-cpu.h>

#include <algorithm>

namespace shoehorn {

ModelParams::ModelParams(const LoadSettings &s, int layerCount)
    : m_patterns(Model::cpuMoePatterns(std::clamp(s.cpuMoeLayers, 0, layerCount))),
      m_params(llama_model_default_params())
{
    for (const auto &p : m_patterns)
        m_overrides.push_back({p.c_str(), ggml_backend_cpu_buffer_type()});
    m_overrides.push_back({nullptr, nullptr});
    m_params.n_gpu_layers = s.gpuLayers;
    m_params.main_gpu = s.mainGpu;
    m_params.load_mtp = s.mtpLayers;
    m_params.tensor_buft_overrides = m_overrides.size() > 1 ? m_overrides.data() : nullptr;
    if (std::any_of(s.tensorSplit.begin(), s.tensorSplit.end(), [](float f) { return f > 0; })) {
        m_split.assign(llama_max_devices(), 0.0f);
        std::copy_n(s.tensorSplit.begin(), std::min(s.tensorSplit.size(), m_split.size()), m_split.begin());
        m_params.tensor_split = m_split.data();
    }
    if (auto devices = internal::modelDeviceHandles(s)) {
        m_devices = std::move(*devices);
        m_params.devices = m_devices.data();
    }
    switch (s.loadMode) {
    case LoadMode::Mmap: m_params.load_mode = LLAMA_LOAD_MODE_MMAP; break;
    case LoadMode::NoMmap: m_params.load_mode = LLAMA_LOAD_MODE_NONE; break;
    case LoadMode::Mlock: m_params.load_mode = LLAMA_LOAD_MODE_MMAP_MLOCK; break;
    }
}

ggml_type kvCacheType(const std::string &name)
{
    return static_cast<ggml_type>(kvCacheGgmlType(name));
}

llama_context_params contextParams(const ContextSettings &s, int parallel)
{
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = s.contextSize;
    cp.n_batch = std::max<uint32_t>(s.batchSize, 1);
    cp.n_ubatch = std::clamp<uint32_t>(s.ubatchSize, 1, cp.n_batch);
    cp.n_seq_max = static_cast<uint32_t>(std::max(1, parallel));
    // Like llama-server: a sliding-window cache sized to the window, not the whole context.
    cp.swa_full = false;
    const int threads = s.threads > 0 ? s.threads : physicalCoreCount();
    cp.n_threads = threads;
    cp.n_threads_batch = s.threadsBatch > 0 ? s.threadsBatch : threads;
    cp.type_k = kvCacheType(s.typeK);
    cp.type_v = kvCacheType(s.typeV);
    switch (s.flashAttention) {
    case FlashAttention::Auto: cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO; break;
    case FlashAttention::On: cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED; break;
    case FlashAttention::Off: cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED; break;
    }
    cp.no_perf = false;
    return cp;
}

CpuThreadPools::CpuThreadPools(const ContextSettings &s)
{
    const int threads = s.threads > 0 ? s.threads : physicalCoreCount();
    const int batch = s.threadsBatch > 0 ? s.threadsBatch : threads;
    // The pools belong to the CPU backend (a module of its own): created through its registry.
    const auto create = reinterpret_cast<decltype(&ggml_threadpool_new)>(internal::cpuProc("ggml_threadpool_new"));
    m_free = reinterpret_cast<decltype(&ggml_threadpool_free)>(internal::cpuProc("ggml_threadpool_free"));
    if (!create || !m_free)
        return; // llama.cpp makes its own per call then
    ggml_threadpool_params p = ggml_threadpool_params_default(threads); // hybrid polling, as llama-bench
    m_generation = create(&p);
    if (batch != threads) {
        ggml_threadpool_params pb = ggml_threadpool_params_default(batch);
        m_batch = create(&pb);
    }
}

CpuThreadPools::~CpuThreadPools()
{
    if (m_batch)
        m_free(m_batch);
    if (m_generation)
        m_free(m_generation);
}

void CpuThreadPools::attach(llama_context *ctx) const
{
    if (m_generation)
        llama_attach_threadpool(ctx, m_generation, m_batch ? m_batch : m_generation);
}

} // namespace shoehorn
