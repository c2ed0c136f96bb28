#include "computeestimate.h"

#include "llamaparams.h"

#include <ggml.h>

#include <algorithm>

namespace shoehorn::internal {

namespace {

// A quantized KV cache is written and read rotated: llama-kv-cache.cpp sets attn_rot_k/attn_rot_v
// for a quantized type_k/type_v when the head size is a multiple of 64 (unless
// LLAMA_ATTN_ROT_DISABLE), and build_attn() (llama-graph.cpp) then multiplies q, k and v (and
// the attention output, for V) by a Hadamard matrix (llama_mul_mat_hadamard, llama-impl.h): a
// new f32 tensor while its input is still alive. The largest of them, q or the output, is
// T x heads x head size.
uint64_t rotationEstimate(const ModelInfo &m, const PlanSettings &s, uint64_t T)
{
    const bool rotK = ggml_is_quantized(kvCacheType(s.context.typeK)) && m.headSizeK % 64 == 0;
    const bool rotV = ggml_is_quantized(kvCacheType(s.context.typeV)) && m.headSizeV % 64 == 0;
    const uint64_t head = std::max(rotK ? m.headSizeK : 0u, rotV ? m.headSizeV : 0u);
    return T * m.headCount * head * 4;
}

} // namespace

int sequences(const PlanSettings &s)
{
    if (!s.serverLoop)
        return std::max(1, s.parallel);
    return std::max(1, (s.desktopSlot ? 1 : 0) + std::max(0, s.apiSlots));
}

uint64_t ubatchTokens(const PlanSettings &s, uint32_t nCtx)
{
    return std::min<uint64_t>(std::min(s.context.ubatchSize, s.context.batchSize), nCtx);
}

// "auto" enables flash attention wherever the backend has it, the CPU included.
uint64_t maskBytes(const PlanSettings &s, uint64_t T, uint32_t nCtx)
{
    return T * nCtx * (s.context.flashAttention != FlashAttention::Off ? 2 : 4);
}

uint64_t reservedOutputs(const PlanSettings &s, uint64_t T)
{
    return s.serverLoop ? std::min<uint64_t>(T, uint64_t(sequences(s))) : T;
}

// The graph allocator's peak for one worst-case ubatch of T tokens. Tensors are freed after
// their last use, so there are two phases: the layers (attention mask, then the larger of the
// attention scores and the FFN activations, plus the residual stream and projections) and the
// output (logits over the vocabulary). Terms and factors follow llama.cpp's graphs and were
// checked against its dry run on the CPU and on a Vulkan device (tests/engine/tst_planner.cpp and
// tests/engine/tst_vulkanplan.cpp print the errors) and on a remote device against what a load
// allocated (docs/benchmarks.md).
uint64_t computeEstimate(const ModelInfo &m, const PlanSettings &s, uint32_t nCtx, bool gpu, const ComputeShare &here)
{
    const uint64_t T = ubatchTokens(s, nCtx);
    const uint64_t E = m.embeddingSize;
    const uint64_t H = m.headCount;
    const uint64_t Hkv = m.headCountKv;
    const uint64_t X = T * E * 4; // one row of hidden state per token
    // "auto" enables flash attention wherever the backend has it, the CPU included.
    const bool fa = s.context.flashAttention != FlashAttention::Off;
    const uint64_t ff = m.isMoe() ? uint64_t(m.expertUsedCount) * std::max(m.expertFeedForwardSize, 1u)
                                  : m.feedForwardSize;
    const uint64_t F = T * ff * 4;                                   // one FFN activation
    const uint64_t D = T * uint64_t(m.expertUsedCount) * E * 4;      // each used expert's output
    const uint64_t router = m.isMoe() ? T * m.expertCount * 4 * 2 : 0; // logits and probabilities
    const uint64_t mask = maskBytes(s, T, nCtx);
    const uint64_t rotation = rotationEstimate(m, s, T);
    const uint64_t outputs = reservedOutputs(s, T);
    uint64_t layerPhase = 0;
    if (here.layers > 0) {
        const uint64_t proj = T * (H * m.headSizeK + Hkv * (m.headSizeK + m.headSizeV)) * 4;
        const uint64_t scores = fa ? 0 : T * uint64_t(nCtx) * H * 4; // softmax works in place
        // The FFN of a layer: its gate, up and product (the routed experts' only where they run).
        uint64_t ffn = (!m.isMoe() || here.experts || here.gateUpOnly ? 3 * F : 0) + router;
        // Where the experts of a full layer run: each token's expert outputs (down) and their
        // weighted copy, E wide per used expert, then the sum. A layer that only sees the output
        // rows (the last one, when fewer outputs than tokens are reserved) needs next to nothing.
        if (m.isMoe() && here.experts)
            ffn = std::max(ffn, 2 * D + 2 * X);
        // The residual stream, the normed input and the output rows' gather: four T x E. A GPU
        // gets the token embeddings from the host, as a copy freed after its first use: one
        // less (measured on Vulkan: 92 MiB for bench-qwen3moe where the CPU has 96 at T = 512).
        layerPhase = mask + std::max(scores + proj + rotation, ffn) + 4 * X - (gpu ? X : 0);
    }
    // Parts of layers whose attention runs on another device, measured against llama.cpp's dry
    // run on lavapipe (Vulkan) with qwen3moe, qwen35moe and gemma3 shapes at T = 256 and 512:
    // - the experts of another device's layers (--n-cpu-moe): their input, gate, up, product,
    //   down (76 MiB for bench-qwen3moe at T = 512, as on a remote device);
    if (here.experts && here.layers == 0)
        layerPhase = std::max(layerPhase, mask + 3 * F + D + 2 * X);
    // - gate and up here, down elsewhere: the down's input goes, its output comes back;
    if (here.gateUpOnly)
        layerPhase = std::max(layerPhase, mask + 4 * X + 3 * F + D);
    // - only the down product here;
    if (here.downOnly)
        layerPhase = std::max(layerPhase, mask + F + D + X);
    // - a layer whose experts ran elsewhere: their outputs come back and are weighed here;
    //   their weighted copy takes the place of the copy that came back, except beside a shared
    //   expert, which keeps both (measured: 52 MiB on a remote device for bench-qwen3moe at 4096
    //   cells, 71.1 MiB on Vulkan for qwen35moe at 8192); in a layer left in RAM, beside a copy
    //   of one of its weights (76.6 MiB for qwen35moe with 10 of 40 layers in RAM);
    if (here.expertsBack)
        layerPhase = std::max(layerPhase, mask + D + (m.expertSharedCount > 0 ? D : 4 * X) + here.denseCopy);
    // - a weight copied in from RAM for its product lives beside that product's inputs and
    //   outputs; an expert weight (100 MiB and more) does not fit the holes that a layer's
    //   K and V copies leave, so those count too (measured: 196.5 MiB for qwen3moe at 8192
    //   cells with a 108 MiB expert copy and 16 MiB of K and V);
    if (here.gateUpCopy > 0)
        layerPhase = std::max(layerPhase, here.gateUpCopy + here.kvCopy + mask + 4 * X + 2 * F);
    if (here.downCopy > 0)
        layerPhase = std::max(layerPhase, here.downCopy + here.kvCopy + mask + 4 * X + F + D);
    if (here.denseCopy > 0)
        layerPhase = std::max(layerPhase, here.denseCopy + 2 * F + 3 * X);
    // - the attention of a layer left in RAM, with its K and V copied in.
    if (here.kvCopy > 0)
        layerPhase = std::max(layerPhase, here.kvCopy + mask + 4 * X);
    // The logits and the hidden states they come from: every token's where every token is an
    // output, else only the output rows (llama.cpp selects them before the last layer's FFN).
    // Measured: the output phase grows by the rotation block too where the layers ran (the graph
    // allocator places the logits past it), by up to 8 MiB at T = 512 on the fixtures.
    const uint64_t outputPhase = (here.output || !gpu) ? outputs * uint64_t(m.vocabSize) * 4 +
                                                             (outputs < T ? outputs : T) * E * 4 * 2 +
                                                             (here.layers > 0 ? rotation : 0)
                                                       : 0;
    return std::max(layerPhase, outputPhase);
}

} // namespace shoehorn::internal
