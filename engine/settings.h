#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shoehorn {

enum class LoadMode { Mmap, NoMmap, Mlock };
enum class FlashAttention { Auto, On, Off };

// Where the weights go. Mirrors llama.cpp's -ngl, --n-cpu-moe, -mg, --no-mmap/--mlock.
struct LoadSettings {
    int gpuLayers = -1;     // -1: all layers (llama.cpp's default), 0: CPU only
    int cpuMoeLayers = 0;   // experts of the first N layers stay in RAM
    int mainGpu = 0;
    LoadMode loadMode = LoadMode::Mmap;
    // llama.cpp's -ts: the layers on the devices in proportion, in the hardware probe's order
    // (remote machines first, as llama.cpp). Empty or all 0: by each device's free memory.
    std::vector<float> tensorSplit;
    bool mtpLayers = false; // load the model's MTP (nextn) layers, for --spec-type draft-mtp
    // llama.cpp's --device: the GPUs the model uses, by ggml name, in this order; {"none"}: none.
    // Empty: llama.cpp's own choice (every GPU, each card once, through the first backend that
    // lists it: CUDA before Vulkan).
    std::vector<std::string> devices = {};
    // For a card several backends see (an NVIDIA card through CUDA and Vulkan): the backend whose
    // device of it is used, e.g. "Vulkan". Empty: llama.cpp's choice. Ignored with `devices`.
    std::string backend = {};
    bool operator==(const LoadSettings &) const = default;
};

// Speculative decoding, as llama-server's flags say it: --spec-type (llama.cpp's type names,
// comma-separated: ngram-simple, ngram-mod, draft-mtp, draft-simple, ...; "none": off),
// -md (the draft model of draft-simple), --spec-draft-n-max/-n-min. Run by the server loop's own
// code (common_speculative), per slot.
struct SpeculationSettings {
    std::string types = "none";
    std::string draftModel;  // -md FILE.gguf: a smaller model with the same vocabulary
    int draftMax = 0;        // tokens drafted at most per step; 0: llama.cpp's default
    int draftMin = 0;        // fewer than this: no draft; 0: llama.cpp's default
    int ngramSizeN = 0;      // ngram-simple: the n-gram looked up (--spec-ngram-simple-size-n); 0: llama.cpp's 12
    bool operator==(const SpeculationSettings &) const = default;
    // The types that run: as given, or draft-simple for a draft model given without a type
    // (llama-server then loads the draft and does not speculate: README's table). "none": off.
    std::string running() const
    {
        if (!types.empty() && types != "none")
            return types;
        return draftModel.empty() ? "none" : "draft-simple";
    }
    bool on() const { return running() != "none"; }
    // draft-mtp is among the types: the model's MTP layers are loaded. (A value's own question,
    // answered in the header: the UI asks it without calling into the engine.)
    bool mtp() const { return ("," + types + ",").find(",draft-mtp,") != std::string::npos; }
};

struct ContextSettings {
    uint32_t contextSize = 4096; // 0: trained length
    uint32_t batchSize = 2048;
    uint32_t ubatchSize = 512;
    std::string typeK = "f16";   // f16, q8_0, q4_0, ...
    std::string typeV = "f16";
    FlashAttention flashAttention = FlashAttention::Auto;
    int threads = 0;             // 0: physical cores
    int threadsBatch = 0;        // 0: same as threads
    SpeculationSettings speculation;
    bool operator==(const ContextSettings &) const = default;
};

struct SamplingSettings {
    float temperature = 0.8f;
    int topK = 40;
    float topP = 0.95f;
    float minP = 0.05f;
    float repeatPenalty = 1.0f;
    int repeatLastN = 64;
    float presencePenalty = 0.0f;
    float frequencyPenalty = 0.0f;
    uint32_t seed = 0xFFFFFFFF;  // LLAMA_DEFAULT_SEED: random
    bool operator==(const SamplingSettings &) const = default;
};

struct GenerationOptions {
    SamplingSettings sampling;
    int maxTokens = -1;                 // -1: until end of generation or context full
    std::vector<std::string> stop;      // extra stop strings
    bool enableThinking = true;         // passed to the chat template
    std::map<std::string, std::string> templateKwargs; // JSON values, e.g. {"reasoning_effort", "\"low\""}
    bool ignoreEos = false;             // benchmarks: write maxTokens tokens (llama-server's ignore_eos)
};

int physicalCoreCount();
const char *loadModeName(LoadMode m);
const char *flashAttentionName(FlashAttention f);
bool parseLoadMode(const std::string &s, LoadMode &out);
bool parseFlashAttention(const std::string &s, FlashAttention &out);
// llama.cpp's -ts text: proportions split by ',' or '/', e.g. "3,1". False (out unchanged) for
// an empty list, a negative or non-numeric part, or more parts than llama.cpp has devices.
bool parseTensorSplit(const std::string &s, std::vector<float> &out);
// A per-device list as llama.cpp's -ts and -fitt take it: the parts between ',' or '/' (empty
// parts kept, for the caller to refuse).
std::vector<std::string> splitDeviceList(const std::string &s);
std::string tensorSplitText(const std::vector<float> &split); // "0.7,0.3"; "" when empty
// llama.cpp's --device text: names split by ','. False (out unchanged) for an empty list or an
// empty name, and for "none" among other names. Whether the devices exist: checkDevices().
bool parseDeviceList(const std::string &s, std::vector<std::string> &out);
std::string deviceListText(const std::vector<std::string> &devices); // "CUDA0,Vulkan1"; "" when empty
bool isKvCacheType(const std::string &s);
// The ggml_type (as int, to keep ggml out of this header) of a KV cache type name; f16 if unknown.
int kvCacheGgmlType(const std::string &s);

} // namespace shoehorn
