#pragma once

#include "graphsplit.h"
#include "modelinfo.h"
#include "planner.h"

#include <cstdint>

namespace shoehorn::internal {

// The sequences a plan's context has: llama-server's --parallel, or Shoehorn's chat slot and API slots.
int sequences(const PlanSettings &s);

// The tokens of a worst-case ubatch for a context of nCtx cells per sequence.
uint64_t ubatchTokens(const PlanSettings &s, uint32_t nCtx);
// The attention mask of such a ubatch (f16 with flash attention, else f32).
uint64_t maskBytes(const PlanSettings &s, uint64_t T, uint32_t nCtx);

// The outputs a worst-case ubatch reserves logits for: llama-server's context (Shoehorn's loop)
// reserves one per sequence (server_output_limits), other contexts one per token.
uint64_t reservedOutputs(const PlanSettings &s, uint64_t T);


// The graph allocator's peak on one device for one worst-case ubatch (the analytic planner's
// compute buffer), for a context of nCtx cells per sequence.
uint64_t computeEstimate(const ModelInfo &m, const PlanSettings &s, uint32_t nCtx, bool gpu, const ComputeShare &here);

} // namespace shoehorn::internal
