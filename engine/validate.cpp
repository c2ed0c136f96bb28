#include "validate.h"

#include <speculative.h>

#include <array>
#include <stdexcept>

namespace shoehorn {

namespace {

constexpr std::array kKvTypes{"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};
constexpr int kMaxThreads = 512;  // GGML_MAX_N_THREADS

Error invalid(std::string detail)
{
    return Error{ErrorCode::InvalidArgument, std::move(detail)};
}

Error checkKvType(const char *flag, const std::string &type)
{
    if (isKvCacheType(type))
        return {};
    return invalid(std::string(flag) + " takes " + kvCacheTypeList() + ", not '" + type + "'");
}

// "-t must be from 0 to 512 (0: ...), not -3": the flag, its range and what was given.
Error checkRange(const char *flag, long long value, long long lo, long long hi, const char *note = nullptr)
{
    if (value >= lo && value <= hi)
        return {};
    std::string s = std::string(flag) + " must be from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (note)
        s += std::string(" (") + note + ")";
    return invalid(s + ", not " + std::to_string(value));
}

} // namespace

std::string kvCacheTypeList()
{
    std::string out;
    for (const char *t : kKvTypes)
        out += (out.empty() ? "" : ", ") + std::string(t);
    return out;
}

bool isQuantizedKvType(const std::string &type)
{
    return isKvCacheType(type) && type != "f32" && type != "f16" && type != "bf16";
}

Error validate(const ContextSettings &c)
{
    if (Error e = checkKvType("-ctk", c.typeK))
        return e;
    if (Error e = checkKvType("-ctv", c.typeV))
        return e;
    if (isQuantizedKvType(c.typeV) && c.flashAttention == FlashAttention::Off)
        return invalid("-ctv " + c.typeV +
                       " needs flash attention (-fa on or auto); llama.cpp refuses a quantized V cache without it");
    // llama.cpp's server decodes two tokens when it starts (common_context_can_seq_rm) and its
    // batch is never larger than the context: a context of one token aborts it.
    if (c.contextSize == 1)
        return invalid("-c 1 leaves no room for a prompt: give 0 (the model's trained context) or at least 2 tokens");
    if (Error e = checkRange("-b", c.batchSize, 1, INT32_MAX))
        return e;
    if (Error e = checkRange("-ub", c.ubatchSize, 1, INT32_MAX))
        return e;
    if (Error e = checkRange("-t", c.threads, 0, kMaxThreads, "0: the physical cores"))
        return e;
    if (Error e = validate(c.speculation))
        return e;
    return checkRange("-tb", c.threadsBatch, 0, kMaxThreads, "0: as -t");
}

Error validate(const SpeculationSettings &s)
{
    try {
        common_speculative_types_from_names(string_split<std::string>(s.types, ','));
    } catch (const std::invalid_argument &) {
        return invalid("--spec-type takes " + std::string(common_speculative_all_types_str()) +
                       " (several separated by commas), not '" + s.types + "'");
    }
    if (Error e = checkRange("--spec-draft-n-max", s.draftMax, 0, 256, "0: llama.cpp's default"))
        return e;
    if (Error e = checkRange("--spec-draft-n-min", s.draftMin, 0, 256, "0: llama.cpp's default"))
        return e;
    if (Error e = checkRange("--spec-ngram-simple-size-n", s.ngramSizeN, 0, 1024, "0: llama.cpp's default"))
        return e;
    if (s.draftMax > 0 && s.draftMin > s.draftMax)
        return invalid("--spec-draft-n-min " + std::to_string(s.draftMin) + " is larger than --spec-draft-n-max " +
                       std::to_string(s.draftMax));
    if (s.types.find("draft-simple") != std::string::npos && s.draftModel.empty())
        return invalid("--spec-type draft-simple needs a draft model: -md FILE.gguf");
    return {};
}

Error validate(const PlanSettings &s)
{
    if (Error e = checkRange("-ngl", s.load.gpuLayers, -1, INT32_MAX, "-1: all layers"))
        return e;
    if (Error e = checkRange("--n-cpu-moe", s.load.cpuMoeLayers, 0, INT32_MAX))
        return e;
    if (Error e = checkRange("-mg", s.load.mainGpu, 0, 255))
        return e;
    if (Error e = checkRange("-np", s.parallel, 1, kMaxSequences))
        return e;
    return validate(s.context);
}

int kvTypeBlockSize(const std::string &type)
{
    return isQuantizedKvType(type) ? 32 : 1;
}

Error validate(const ModelInfo &m, const ContextSettings &c)
{
    const auto check = [](const char *flag, const std::string &type, uint32_t head, const char *which) -> Error {
        const int block = kvTypeBlockSize(type);
        if (head == 0 || head % uint32_t(block) == 0)
            return {};
        return invalid(std::string(flag) + " " + type + " stores blocks of " + std::to_string(block) +
                       " values, so it needs a head size that is a multiple of " + std::to_string(block) +
                       "; this model's " + which + " head size is " + std::to_string(head) +
                       " (llama.cpp refuses the context). Use f16 for the KV cache (-ctk f16 -ctv f16).");
    };
    if (Error e = check("-ctk", c.typeK, m.headSizeK, "K"))
        return e;
    return check("-ctv", c.typeV, m.headSizeV, "V");
}

Error validateMemory(const ModelInfo &m, const ContextSettings &c, const PlanTarget &t)
{
    PlanSettings s;
    s.context = c;
    const MemoryPlan plan = analyticPlan(m, s, t);
    uint64_t kv = plan.ram.use.kv(), capacity = t.ramTotalBytes;
    for (const DevicePlan &g : plan.gpus)
        kv += g.use.kv();
    for (const GpuInfo &g : t.gpus)
        capacity += g.totalBytes;
    if (capacity == 0 || kv <= capacity)
        return {};
    // OutOfMemory, as llama.cpp's failure would have been: the app's ladder steps down from it.
    return Error{ErrorCode::OutOfMemory, "-c " + std::to_string(plan.contextSize) + ": the KV cache alone needs " +
                                             formatBytes(kv) + ", more than all the memory planned for (" +
                                             formatBytes(capacity) + " of RAM and GPU memory together); give a smaller context"};
}

std::string allowedTypeV(const std::string &wantedV, FlashAttention flashAttention)
{
    return flashAttention == FlashAttention::Off && isQuantizedKvType(wantedV) ? "f16" : wantedV;
}

std::string contextWarning(const ModelInfo &m, uint32_t contextSize)
{
    const uint32_t trained = m.contextLength;
    if (trained == 0 || contextSize <= trained)
        return {};
    return "-c " + std::to_string(contextSize) + " is above the model's trained context of " +
           std::to_string(trained) + " tokens: llama.cpp's server gives a conversation at most " +
           std::to_string(trained) + " of them (the KV cache above that is allocated and unused); the Shoehorn app "
           "caps the context at " + std::to_string(trained) + ".";
}

std::string threadsWarning(const ContextSettings &c, unsigned cpuThreads)
{
    for (const auto &[flag, n] : {std::pair{"-t", c.threads}, std::pair{"-tb", c.threadsBatch}})
        if (cpuThreads > 0 && n > 0 && unsigned(n) > cpuThreads)
            return std::string(flag) + " " + std::to_string(n) + " is more than the " + std::to_string(cpuThreads) +
                   (cpuThreads == 1 ? " CPU thread" : " CPU threads") +
                   " this process may use at once: llama.cpp's threads take turns and every step waits for the last "
                   "of them (far slower than " + flag + " " + std::to_string(cpuThreads) + "; leave " + flag +
                   " out for one per core)";
    return {};
}

} // namespace shoehorn
