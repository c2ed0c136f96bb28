#include "computeestimate.h"
#include "graphsplit.h"
#include "planparts.h"

#include <algorithm>

// What speculation adds to the analytic plan: the context draft-mtp runs on the model's own MTP
// layers, and a draft model with its own context.
namespace shoehorn {

namespace {

using internal::ContextCells;
using internal::Placement;
using internal::deviceFor;
using internal::trunkLayers;

// The settings of speculation's second context: llama.cpp's common_base_params_to_speculative()
// gives it the target's n_ctx, slots, batches and flash attention, and its own KV type
// (llama-server's -ctkd/-ctvd, f16 by default), and nothing of its own to speculate with.
PlanSettings draftContextSettings(const PlanSettings &s, uint32_t contextCells)
{
    PlanSettings d = s;
    d.context.contextSize = contextCells;
    d.context.typeK = "f16";
    d.context.typeV = "f16";
    d.context.speculation = SpeculationSettings{};
    d.projectorBytes = 0;
    d.draftModel.reset();
    return d;
}

// The MTP context's compute buffers for one worst-case ubatch. Its attention phase (the mask,
// the scores without flash attention, the routed experts' outputs beside the residual stream
// and the concatenated input) runs where the nextn layer lies, its FFN phase (the experts'
// outputs and their weighted copy) where its experts lie (--n-cpu-moe over every layer, or a
// GPU that refuses them: in RAM), and the host keeps the inputs, as for the main context.
// Fitted to llama.cpp's dry run of qwen35-35b-a3b-mtp on the CPU at 4096-65536 cells and
// ubatches of 128-1024 tokens (within 7 %, tst_planner) and on lavapipe (tst_plannervulkan).
void addMtpCompute(MemoryPlan &plan, const ModelInfo &m, const PlanSettings &ds, const Placement &p, uint32_t nCtx,
                   const PlanTarget &t)
{
    const uint64_t T = internal::ubatchTokens(ds, nCtx);
    const uint64_t E = m.embeddingSize;
    const uint64_t X = T * E * 4;
    const uint64_t D = m.isMoe() ? T * uint64_t(m.expertUsedCount) * E * 4 : T * uint64_t(m.feedForwardSize) * 4;
    const bool fa = ds.context.flashAttention != FlashAttention::Off;
    const uint64_t scores = fa ? 0 : T * uint64_t(nCtx) * m.headCount * 4;
    const uint64_t mask = internal::maskBytes(ds, T, nCtx);
    // One output per sequence (common_base_params_to_speculative: n_outputs_max = n_parallel).
    const uint64_t outputs = std::min<uint64_t>(T, uint64_t(internal::sequences(ds)));
    const uint64_t logits = outputs * uint64_t(m.vocabSize) * 4 + outputs * E * 4 * 2;
    const int layer = p.deviceOf(trunkLayers(m));
    int experts = layer;
    for (const TensorInfo &ti : m.tensors)
        if (ti.layer == trunkLayers(m) && ti.role == TensorRole::Expert)
            experts = internal::weightDevice(ti, layer, std::clamp(ds.load.cpuMoeLayers, 0, int(m.layerCount)), t);
    const uint64_t attention = mask + scores + D + 2 * X, ffn = 2 * D + X;
    deviceFor(plan, layer).use.draftCompute += std::max(experts == layer ? std::max(attention, ffn) : attention, logits);
    if (experts != layer)
        deviceFor(plan, experts).use.draftCompute += ffn;
    if (layer >= 0 && experts >= 0) // a CPU that runs none of it still holds the inputs
        plan.ram.use.draftCompute += mask + 2 * X;
}

} // namespace

// draft-mtp: a context on the model's own MTP layers (their weights are in addWeights), whose
// KV lies with its layers.
void internal::addMtpContext(MemoryPlan &plan, const ModelInfo &m, const PlanSettings &s, const Placement &p,
                   const ContextCells &cells, const PlanTarget &t)
{
    if (!mtpContext(m, s))
        return;
    const PlanSettings ds = draftContextSettings(s, plan.contextSize);
    const std::vector<uint64_t> kv = layerKvBytes(m, ds, plan.contextSize, true);
    for (size_t il = 0; il < kv.size(); ++il)
        deviceFor(plan, p.deviceOf(int(il))).use.draftKv += kv[il];
    addMtpCompute(plan, m, ds, p, cells.perSequence, t);
}

// A draft model (-md): loaded like llama-server loads it (every layer on the GPUs, the target's
// load mode) on the target's devices (ServerLoop: the draft goes where the model went), with a
// context of the target's size: its plan, added to each device's draft parts.
void internal::addDraftModel(MemoryPlan &plan, const PlanSettings &s, const PlanTarget &t)
{
    if (!s.draftModel || s.context.speculation.draftModel.empty())
        return;
    PlanSettings ds = draftContextSettings(s, plan.contextSize);
    ds.load = LoadSettings{};
    ds.load.gpuLayers = -1;
    ds.load.loadMode = s.load.loadMode;
    ds.load.devices = s.load.devices;
    ds.load.backend = s.load.backend;
    const MemoryPlan d = analyticPlan(*s.draftModel, ds, t);
    auto add = [](MemoryUse &to, const MemoryUse &from) {
        to.draftWeights += from.weights();
        to.draftKv += from.kv();
        to.draftCompute += from.compute;
    };
    for (size_t i = 0; i < plan.gpus.size() && i < d.gpus.size(); ++i)
        add(plan.gpus[i].use, d.gpus[i].use);
    add(plan.ram.use, d.ram.use);
    plan.mmapResidentBytes += d.mmapResidentBytes;
}

} // namespace shoehorn
