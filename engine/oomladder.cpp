#include "oomladder.h"

#include "validate.h"

#include <algorithm>
#include <cmath>
#include <regex>

namespace shoehorn {

namespace {
constexpr uint32_t kSmallestContext = 2048;
}

std::optional<OomRetry> nextSaferSettings(const ModelInfo &m, const PlanSettings &failed)
{
    const int nLayer = static_cast<int>(m.layerCount);
    const int ngl = failed.load.gpuLayers < 0 ? nLayer + 1 : std::min(failed.load.gpuLayers, nLayer + 1);
    // Steps of about an eighth of the model: a few retries, not fifty.
    const int stride = std::max(1, nLayer / 8);
    OomRetry r;
    r.before = failed;
    r.after = failed;
    r.after.load.gpuLayers = ngl;
    const int firstGpuLayer = nLayer + 1 - ngl;
    const SpeculationSettings &spec = failed.context.speculation;
    if ((spec.mtp() && failed.load.mtpLayers) || (spec.on() && !spec.draftModel.empty())) {
        r.step = LadderStep::SpeculationOff;
        r.after.context.speculation = SpeculationSettings{};
        r.after.load.mtpLayers = false;
        r.after.draftModel.reset();
        return r;
    }
    if (m.isMoe() && ngl > 0 && std::max(failed.load.cpuMoeLayers, firstGpuLayer) < nLayer) {
        r.step = LadderStep::MoreExpertsOnCpu;
        r.after.load.cpuMoeLayers = std::min(nLayer, std::max(failed.load.cpuMoeLayers, firstGpuLayer) + stride);
        return r;
    }
    if (ngl > 0) {
        r.step = LadderStep::FewerGpuLayers;
        r.after.load.gpuLayers = std::max(0, ngl - stride);
        return r;
    }
    const uint32_t ctx = failed.context.contextSize == 0 ? m.contextLength : failed.context.contextSize;
    if (ctx > kSmallestContext) {
        r.step = LadderStep::SmallerContext;
        r.after.context.contextSize = std::max(kSmallestContext, ctx / 2);
        return r;
    }
    const bool blocksFit = m.headSizeK % 32 == 0 && m.headSizeV % 32 == 0; // llama.cpp needs whole q8_0 blocks
    // Without flash attention llama.cpp refuses a quantized V cache: then only K is quantized.
    const std::string typeV = allowedTypeV("q8_0", failed.context.flashAttention);
    const bool changes = failed.context.typeK == "f16" || (failed.context.typeV == "f16" && typeV != "f16");
    if (blocksFit && changes) {
        r.step = LadderStep::QuantizedKv;
        r.after.context.typeK = "q8_0";
        r.after.context.typeV = failed.context.typeV == "f16" ? typeV : failed.context.typeV;
        return r;
    }
    return std::nullopt;
}

AllocationFailure parseAllocationFailure(const std::string &log)
{
    AllocationFailure f;
    static const std::regex sized(R"(failed to allocate (\S+) buffer of size (\d+))");
    static const std::regex mib(R"(allocating ([0-9.]+) MiB on device (\d+))");
    std::smatch m;
    if (std::regex_search(log, m, sized)) {
        f.buffer = m[1].str();
        f.bytes = std::stoull(m[2].str());
    } else if (std::regex_search(log, m, mib)) {
        f.buffer = "device " + m[2].str();
        f.bytes = static_cast<uint64_t>(std::llround(std::stod(m[1].str()) * 1024.0 * 1024.0));
    }
    return f;
}

const char *ladderStepName(LadderStep step)
{
    switch (step) {
    case LadderStep::SpeculationOff: return "no speculative decoding";
    case LadderStep::MoreExpertsOnCpu: return "more expert layers on the CPU";
    case LadderStep::FewerGpuLayers: return "fewer GPU layers";
    case LadderStep::SmallerContext: return "a smaller context";
    case LadderStep::QuantizedKv: return "a q8_0 KV cache";
    }
    return "";
}

} // namespace shoehorn
