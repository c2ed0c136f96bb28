#pragma once

#include "settings.h"

#include <llama.h>

#include <string>
#include <vector>

namespace shoehorn {

// Shoehorn's settings as llama.cpp's parameter structs, in one place for loading, the chat
// context and the planner's dry run.
class ModelParams
{
public:
    ModelParams(const LoadSettings &settings, int layerCount);
    ModelParams(const ModelParams &) = delete;
    ModelParams &operator=(const ModelParams &) = delete;
    // Points into this object (the override patterns): keep it alive while llama.cpp loads.
    llama_model_params &get() { return m_params; }

private:
    std::vector<std::string> m_patterns;
    std::vector<llama_model_tensor_buft_override> m_overrides;
    std::vector<float> m_split; // llama_max_devices() entries, as llama.cpp reads them
    std::vector<ggml_backend_dev_t> m_devices; // LoadSettings::devices/backend, null-terminated
    llama_model_params m_params;
};

llama_context_params contextParams(const ContextSettings &settings, int parallel = 1);

// Persistent CPU worker threads for one context. Without them ggml starts and joins its
// threads for every graph, i.e. for every generated token: about 10 % of generation speed
// on the CPU, measured against llama-bench, which attaches a pool the same way.
class CpuThreadPools
{
public:
    explicit CpuThreadPools(const ContextSettings &settings);
    ~CpuThreadPools();
    CpuThreadPools(const CpuThreadPools &) = delete;
    CpuThreadPools &operator=(const CpuThreadPools &) = delete;
    void attach(llama_context *ctx) const;

private:
    ggml_threadpool *m_generation = nullptr;
    ggml_threadpool *m_batch = nullptr; // null: the generation pool does both
    void (*m_free)(ggml_threadpool *) = nullptr;
};
ggml_type kvCacheType(const std::string &name);

} // namespace shoehorn
