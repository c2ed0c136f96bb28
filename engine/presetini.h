#pragma once

#include "error.h"
#include "settings.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shoehorn {

// One section of a llama-server --models-preset INI file. Every field is optional: a section
// sets only what it names, on top of the [*] defaults.
struct ModelPreset {
    std::string name;          // the section name
    std::optional<std::string> model;
    std::optional<std::string> mmproj;
    std::optional<bool> loadOnStartup;
    std::optional<int> gpuLayers;
    std::optional<int> cpuMoeLayers;
    std::optional<LoadMode> loadMode;
    std::optional<uint32_t> contextSize;
    std::optional<uint32_t> batchSize;
    std::optional<uint32_t> ubatchSize;
    std::optional<std::string> typeK;
    std::optional<std::string> typeV;
    std::optional<FlashAttention> flashAttention;
    std::optional<int> threads;
    std::optional<int> parallel;
    std::optional<float> temperature;
    std::optional<float> topP;
    std::optional<int> topK;
    std::optional<float> minP;
    std::optional<float> presencePenalty;
    std::optional<float> repeatPenalty;
    // Speculative decoding, llama-server's keys: spec-type, spec-draft-model (-md, model-draft),
    // spec-draft-n-max (draft, draft-max), spec-draft-n-min (draft-min), spec-ngram-simple-size-n.
    std::optional<std::string> specType;
    std::optional<std::string> draftModel;
    std::optional<int> draftMax;
    std::optional<int> draftMin;
    std::optional<int> ngramSizeN;
    std::optional<std::vector<std::string>> devices; // device (dev): llama-server's --device list
    std::optional<uint32_t> seed;
    std::map<std::string, std::string> templateKwargs; // from chat-template-kwargs (JSON object)

    // This preset with `over`'s fields replacing ours where set.
    ModelPreset overlaidWith(const ModelPreset &over) const;
    // Apply to settings (fields not set keep their value).
    void applyTo(LoadSettings &load, ContextSettings &context, GenerationOptions &generation) const;
};

struct PresetIssue {
    int line = 0;
    std::string section;
    std::string key;
    std::string message; // "unknown key", "bad value", ...
};

struct PresetFile {
    int version = 1;
    ModelPreset defaults;              // [*]
    std::vector<ModelPreset> models;   // every other section, with the defaults applied
    std::vector<PresetIssue> issues;   // reported, never silently dropped
};

Result<PresetFile> parsePresetIni(const std::string &text);

} // namespace shoehorn
