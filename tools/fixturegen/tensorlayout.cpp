#include "fixturesinternal.h"

namespace shoehorn::fixtures::detail {

namespace {

bool useMoreBits(uint32_t i, uint32_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

ggml_type typeFor(const Spec &s, const std::string &name, uint32_t layer, int64_t ne0)
{
    // Norms, routers and the SSM convolution stay F32 in real files (ggml's ssm_conv needs F32).
    const bool isNorm = name.find("norm") != std::string::npos || name.find("ffn_gate_inp") != std::string::npos ||
                        name.find("ssm_conv1d") != std::string::npos;
    if (isNorm)
        return GGML_TYPE_F32;
    if (s.quant == "f32")
        return GGML_TYPE_F32;
    if (s.quant == "f16")
        return GGML_TYPE_F16;
    if (s.quant == "q8_0")
        return ne0 % 32 == 0 ? GGML_TYPE_Q8_0 : GGML_TYPE_F32;
    // q4_k_m, following llama.cpp's mix: Q6_K for the output and for attn_v / ffn_down of the
    // layers that get more bits, Q4_K elsewhere.
    if (ne0 % 32 != 0)
        return GGML_TYPE_F32;
    if (ne0 % 256 != 0)
        return GGML_TYPE_Q8_0;
    if (name == "output.weight" || (name == "token_embd.weight" && s.tiedOutput && s.tiedEmbeddingType))
        return GGML_TYPE_Q6_K;
    if ((name.find("attn_v") != std::string::npos || name.find("ffn_down") != std::string::npos) &&
        useMoreBits(layer, s.layers + s.mtpLayers)) // llama-quantize counts every block
        return GGML_TYPE_Q6_K;
    return GGML_TYPE_Q4_K;
}

// MTP blocks (il >= layers) are full attention: llama.cpp derives the recurrent flags from
// full_attention_interval for the trunk only, so no attention.recurrent_layers array is needed.
bool isRecurrentLayer(const Spec &s, uint32_t il)
{
    return s.arch == "qwen35moe" && il < s.layers && (il + 1) % s.fullAttentionInterval != 0;
}

// Gated delta net (qwen35moe's linear-attention layers).
void addRecurrentMixer(std::vector<TensorDef> &d, const Spec &s, uint32_t i, const std::string &b)
{
    const int64_t E = s.embd;
    const int64_t keyDim = int64_t(s.ssmStateSize) * s.ssmGroupCount;
    const int64_t valueDim = int64_t(s.ssmStateSize) * s.ssmTimeStepRank;
    d.push_back({b + "attn_qkv.weight", {E, keyDim * 2 + valueDim, 1}, 2, i});
    d.push_back({b + "attn_gate.weight", {E, valueDim, 1}, 2, i});
    d.push_back({b + "ssm_conv1d.weight", {int64_t(s.ssmConvKernel), keyDim * 2 + valueDim, 1}, 2, i});
    d.push_back({b + "ssm_dt.bias", {int64_t(s.ssmTimeStepRank), 1, 1}, 1, i});
    d.push_back({b + "ssm_a", {int64_t(s.ssmTimeStepRank), 1, 1}, 1, i});
    d.push_back({b + "ssm_beta.weight", {E, int64_t(s.ssmTimeStepRank), 1}, 2, i});
    d.push_back({b + "ssm_alpha.weight", {E, int64_t(s.ssmTimeStepRank), 1}, 2, i});
    d.push_back({b + "ssm_norm.weight", {int64_t(s.ssmStateSize), 1, 1}, 1, i});
    d.push_back({b + "ssm_out.weight", {valueDim, E, 1}, 2, i});
}

void addAttentionMixer(std::vector<TensorDef> &d, const Spec &s, uint32_t i, const std::string &b)
{
    const int64_t E = s.embd, Q = int64_t(s.headDim) * s.heads, KV = int64_t(s.headDim) * s.headsKv;
    // qwen35moe's full-attention layers project a gate along with q.
    d.push_back({b + "attn_q.weight", {E, s.arch == "qwen35moe" ? Q * 2 : Q, 1}, 2, i});
    d.push_back({b + "attn_k.weight", {E, KV, 1}, 2, i});
    d.push_back({b + "attn_v.weight", {E, KV, 1}, 2, i});
    d.push_back({b + "attn_output.weight", {Q, E, 1}, 2, i});
    if (s.arch != "llama") {
        d.push_back({b + "attn_q_norm.weight", {int64_t(s.headDim), 1, 1}, 1, i});
        d.push_back({b + "attn_k_norm.weight", {int64_t(s.headDim), 1, 1}, 1, i});
    }
}

// Routed experts (with the shared expert, if any) or a dense FFN.
void addFfn(std::vector<TensorDef> &d, const Spec &s, uint32_t i, const std::string &b)
{
    const int64_t E = s.embd;
    if (s.experts > 0) {
        const int64_t F = s.expertFf, X = s.experts;
        d.push_back({b + "ffn_gate_inp.weight", {E, X, 1}, 2, i});
        d.push_back({b + "ffn_gate_exps.weight", {E, F, X}, 3, i});
        d.push_back({b + "ffn_down_exps.weight", {F, E, X}, 3, i});
        d.push_back({b + "ffn_up_exps.weight", {E, F, X}, 3, i});
        if (s.sharedExpertFf > 0) {
            const int64_t S = s.sharedExpertFf;
            d.push_back({b + "ffn_gate_inp_shexp.weight", {E, 1, 1}, 1, i});
            d.push_back({b + "ffn_gate_shexp.weight", {E, S, 1}, 2, i});
            d.push_back({b + "ffn_up_shexp.weight", {E, S, 1}, 2, i});
            d.push_back({b + "ffn_down_shexp.weight", {S, E, 1}, 2, i});
        }
    } else {
        d.push_back({b + "ffn_gate.weight", {E, int64_t(s.ff), 1}, 2, i});
        d.push_back({b + "ffn_down.weight", {int64_t(s.ff), E, 1}, 2, i});
        d.push_back({b + "ffn_up.weight", {E, int64_t(s.ff), 1}, 2, i});
    }
}

// A Qwen3.5 MTP block (llama.cpp's qwen35moe load_block_mtp): a full-attention MoE decoder
// block plus the nextn projection of [norm(embedding), norm(hidden)]. Like the converter's
// output (mtp.norm becomes shared_head_norm), it has no embed_tokens or shared_head_head:
// those fall back to token_embd and output.
void addMtpBlock(std::vector<TensorDef> &d, const Spec &s, uint32_t i)
{
    const int64_t E = s.embd;
    const std::string b = "blk." + std::to_string(i) + ".";
    d.push_back({b + "attn_norm.weight", {E, 1, 1}, 1, i});
    addAttentionMixer(d, s, i, b);
    d.push_back({b + "post_attention_norm.weight", {E, 1, 1}, 1, i});
    addFfn(d, s, i, b);
    d.push_back({b + "nextn.eh_proj.weight", {2 * E, E, 1}, 2, i});
    d.push_back({b + "nextn.enorm.weight", {E, 1, 1}, 1, i});
    d.push_back({b + "nextn.hnorm.weight", {E, 1, 1}, 1, i});
    d.push_back({b + "nextn.shared_head_norm.weight", {E, 1, 1}, 1, i});
}

} // namespace

std::vector<TensorDef> tensorDefs(const Spec &s, uint32_t nVocab)
{
    std::vector<TensorDef> d;
    const int64_t E = s.embd;
    d.push_back({"token_embd.weight", {E, nVocab, 1}, 2, 0});
    d.push_back({"output_norm.weight", {E, 1, 1}, 1, 0});
    if (!s.tiedOutput)
        d.push_back({"output.weight", {E, nVocab, 1}, 2, s.layers});
    for (uint32_t i = 0; i < s.layers; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        d.push_back({b + "attn_norm.weight", {E, 1, 1}, 1, i});
        if (isRecurrentLayer(s, i))
            addRecurrentMixer(d, s, i, b);
        else
            addAttentionMixer(d, s, i, b);
        if (s.arch == "gemma3" || s.arch == "qwen35moe")
            d.push_back({b + "post_attention_norm.weight", {E, 1, 1}, 1, i});
        if (s.arch != "qwen35moe")
            d.push_back({b + "ffn_norm.weight", {E, 1, 1}, 1, i});
        if (s.arch == "gemma3")
            d.push_back({b + "post_ffw_norm.weight", {E, 1, 1}, 1, i});
        addFfn(d, s, i, b);
    }
    for (uint32_t i = s.layers; i < s.layers + s.mtpLayers; ++i)
        addMtpBlock(d, s, i);
    return d;
}

std::vector<ggml_tensor *> makeTensors(ggml_context *meta, const Spec &s, const std::vector<TensorDef> &defs)
{
    std::vector<ggml_tensor *> tensors;
    for (const auto &d : defs) {
        const ggml_type type = d.dims == 1 ? GGML_TYPE_F32 : typeFor(s, d.name, d.layer, d.ne[0]);
        ggml_tensor *t = ggml_new_tensor(meta, type, d.dims, d.ne);
        ggml_set_name(t, d.name.c_str());
        tensors.push_back(t);
    }
    return tensors;
}

} // namespace shoehorn::fixtures::detail
