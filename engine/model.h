#pragma once

#include "error.h"
#include "modelinfo.h"
#include "settings.h"

#include <llama-cpp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

// A loaded llama.cpp model and what we know of its file. Owns the llama_model (RAII) and
// the override patterns llama.cpp keeps pointers to while loading.
class Model
{
public:
    using ProgressFn = std::function<void(float)>;

    // Loads on the calling thread. `cancel` is checked from llama's progress callback.
    static Result<std::shared_ptr<Model>> load(const std::string &path, const LoadSettings &settings,
                                               const ProgressFn &progress = {},
                                               const std::atomic<bool> *cancel = nullptr);

    llama_model *get() const { return m_model.get(); }
    const llama_vocab *vocab() const;
    const ModelInfo &info() const { return m_info; }
    const LoadSettings &settings() const { return m_settings; }
    std::string description() const;

    // llama.cpp's --n-cpu-moe patterns for the first n layers.
    static std::vector<std::string> cpuMoePatterns(int layers);

private:
    Model() = default;
    llama_model_ptr m_model;
    ModelInfo m_info;
    LoadSettings m_settings;
};

// True if llama.cpp's log text describes a failed allocation.
bool looksLikeOutOfMemory(const std::string &log);

} // namespace shoehorn
