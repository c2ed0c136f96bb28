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
// checked against its dry run (tests/engine/tst_planner.cpp prints the errors) and, on a
// remote device, against what a load allocated (docs/benchmarks.md).
uint64_t computeEstimate(const ModelInfo &m, const PlanSettings &s, uint32_t nCtx, bool gpu, const ComputeShare &here)
{
    const uint64_t T = ubatchTokens(s, nCtx);
    const uint64_t E = m.embeddingSize;
    const uint64_t H = m.headCount;
    const uint64_t Hkv = m.headCountKv;
    // "auto" enables flash attention wherever the backend has it, the CPU included.
    const bool fa = s.context.flashAttention != FlashAttention::Off;
    const uint64_t ff = m.isMoe() ? uint64_t(m.expertUsedCount) * std::max(m.expertFeedForwardSize, 1u)
                                  : m.feedForwardSize;
    const uint64_t rotation = rotationEstimate(m, s, T);
    const uint64_t outputs = reservedOutputs(s, T);
    uint64_t layerPhase = 0;
    if (here.layers > 0 || here.experts) {
        const uint64_t mask = maskBytes(s, T, nCtx);
        const uint64_t proj = T * (H * m.headSizeK + Hkv * (m.headSizeK + m.headSizeV)) * 4;
        const uint64_t scores = fa ? 0 : T * uint64_t(nCtx) * H * 4; // softmax works in place
        uint64_t ffn = T * ff * 3 * 4 + (m.isMoe() ? T * m.expertCount * 4 * 2 : 0);
        // Where the experts of a full layer run: each token's expert outputs (down) and their
        // weighted copy, E wide per used expert, then the sum. A layer that only sees the output
        // rows (the last one, when fewer outputs than tokens are reserved) needs next to nothing.
        // Measured on a remote device (88 MiB for bench-qwen3moe at T = 512, as llama.cpp's dry
        // run); on the CPU where the logits are small (one output per slot).
        if (m.isMoe() && here.experts)
            ffn = std::max(ffn, T * uint64_t(m.expertUsedCount) * E * 4 * 2 + T * E * 4 * 2);
        // The residual stream, the normed input and the output rows' gather: four T x E.
        layerPhase = mask + std::max(scores + proj + rotation, ffn) + T * E * 4 * 4;
    }
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
