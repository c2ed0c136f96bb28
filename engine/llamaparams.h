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
    llama_model_params m_params;
};

llama_context_params contextParams(const ContextSettings &settings, int parallel = 1);
ggml_type kvCacheType(const std::string &name);

} // namespace shoehorn
