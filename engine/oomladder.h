#pragma once

#include "modelinfo.h"
#include "planner.h"

#include <cstdint>
#include <optional>
#include <string>

namespace shoehorn {

// The out-of-memory ladder: after a load or context creation fails for memory, each rung is
// a safer plan: speculation without its second context (a draft model's or the MTP layers':
// an optional speed-up, and the one that pays least where memory is short), then more expert
// layers on the CPU, then fewer GPU layers, then a smaller context, then a q8_0 KV cache.
enum class LadderStep { SpeculationOff, MoreExpertsOnCpu, FewerGpuLayers, SmallerContext, QuantizedKv };

struct AllocationFailure {
    std::string buffer;  // e.g. "CUDA0", "CPU"
    uint64_t bytes = 0;  // what the failed allocation asked for (0 if llama.cpp did not say)
};

struct OomRetry {
    AllocationFailure failure;
    LadderStep step = LadderStep::MoreExpertsOnCpu;
    PlanSettings before;
    PlanSettings after;
};

// The next rung below `failed`, or nothing when the ladder is exhausted.
std::optional<OomRetry> nextSaferSettings(const ModelInfo &model, const PlanSettings &failed);

// Reads llama.cpp/ggml's log of a failed allocation ("failed to allocate CUDA0 buffer of size N",
// "allocating 5120.00 MiB on device 0: cudaMalloc failed").
AllocationFailure parseAllocationFailure(const std::string &log);

const char *ladderStepName(LadderStep step);

} // namespace shoehorn
