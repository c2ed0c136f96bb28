#include "fixtures.h"

#include <ggml.h>
#include <gguf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>

namespace shoehorn::fixtures {

namespace {

constexpr const char *kChatMl =
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

// A Qwen3.5-style template: the generation prompt opens a <think> block, or closes an empty
// one when the caller passes enable_thinking=false.
constexpr const char *kChatMlThinking =
    "{%- for message in messages -%}"
    "{%- if message.role == 'assistant' and message.reasoning_content is defined and message.reasoning_content -%}"
    "{{- '<|im_start|>assistant\\n<think>\\n' + message.reasoning_content + '\\n</think>\\n\\n' + message.content"
    " + '<|im_end|>\\n' -}}"
    "{%- else -%}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}{{- '<think>\\n\\n</think>\\n\\n' -}}"
    "{%- else -%}{{- '<think>\\n' -}}{%- endif -%}{%- endif -%}";

// SentencePiece-style pieces ("\u2581" is the word-start marker). A few multi-byte pieces make
// the UTF-8 paths real; byte tokens cover everything else.
const char *kWords[] = {
    "\u2581the", "\u2581a", "\u2581is", "\u2581of", "\u2581and", "\u2581to", "\u2581in", "\u2581it", "\u2581you",
    "\u2581that", "\u2581model", "\u2581GPU", "\u2581CPU", "\u2581memory", "\u2581layer", "\u2581expert",
    "\u2581token", "\u2581fast", "\u2581slow", "\u2581small", "\u2581large", "\u2581hello", "\u2581world",
    "\u2581code", "\u2581run", "\u2581load", "\u2581chat", "\u2581answer", "\u2581question", "\u2581think",
    "\u2581yes", "\u2581no", "\u2581maybe", "\u2581here", "\u2581there", "\u2581with", "\u2581for", "\u2581on",
    "\u2581we", "\u2581can", "\u2581will", "\u2581not", "\u2581more", "\u2581less", "\u2581int", "\u2581return",
    "\u2581def", "\u2581print", "\u2581if", "\u2581else", "\u2581while", "\u2581list", "\u2581table",
    "\u2581step", "\u2581one", "\u2581two", "\u2581three", "\u2581data", "\u2581file", "\u2581save",
    "\u2581\u4f60\u597d", "\u4f60", "\u597d", "\u4e16\u754c", "\u6a21\u578b", "\u663e\u5b58", "\u5185\u5b58",
    "\u4e13\u5bb6", "\u3002", "\uff0c", "\u2581\u2014", "\u00e9", "\u00fc", "\U0001F600", "\U0001F680",
    "\u2581", "\u2581\u2581", "\u2581\u2581\u2581\u2581", ".", ",", "!", "?", ":", ";", "(", ")", "[", "]", "{",
    "}", "=", "+", "-", "*", "**", "#", "##", "`", "```", "|", "/", "\"", "'", "0", "1", "2", "3", "4", "5",
    "6", "7", "8", "9", "a", "b", "c", "d", "e", "f", "g", "h", "i", "k", "l", "m", "n", "o", "p", "r", "s",
    "t", "u", "w", "x", "y", "er", "ing", "ed", "ly", "s", "\u2581T", "\u2581I", "\u2581S", "\u2581W",
};

enum TokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Byte = 6 };

struct Vocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
};

Vocab makeVocab(uint32_t minSize)
{
    Vocab v;
    auto add = [&](std::string t, float score, TokenType type) {
        v.tokens.push_back(std::move(t));
        v.scores.push_back(score);
        v.types.push_back(type);
    };
    add("<unk>", 0, Unknown);
    add("<s>", 0, Control);
    add("</s>", 0, Control);
    add("<|im_start|>", 0, Control);
    add("<|im_end|>", 0, Control);
    add("<think>", 0, UserDefined);
    add("</think>", 0, UserDefined);
    for (int b = 0; b < 256; ++b) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "<0x%02X>", b);
        add(buf, 0, Byte);
    }
    std::vector<std::string> seen;
    for (const char *w : kWords) {
        if (std::find(seen.begin(), seen.end(), w) != seen.end())
            continue;
        seen.emplace_back(w);
        // SPM merges prefer higher scores: longer pieces score higher.
        add(w, -1000.0f + static_cast<float>(std::string(w).size()), Normal);
    }
    for (uint32_t i = 0; v.tokens.size() < minSize; ++i)
        add("\u2581w" + std::to_string(i), -2000.0f, Normal);
    return v;
}

bool useMoreBits(uint32_t i, uint32_t n)
{
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

ggml_type typeFor(const Spec &s, const std::string &name, uint32_t layer, int64_t ne0)
{
    const bool isNorm = name.find("norm") != std::string::npos || name.find("ffn_gate_inp") != std::string::npos;
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
    if (name == "output.weight")
        return GGML_TYPE_Q6_K;
    if ((name.find("attn_v") != std::string::npos || name.find("ffn_down") != std::string::npos) &&
        useMoreBits(layer, s.layers))
        return GGML_TYPE_Q6_K;
    return GGML_TYPE_Q4_K;
}

int ftypeOf(const std::string &quant)
{
    if (quant == "f32") return 0;
    if (quant == "f16") return 1;
    if (quant == "q8_0") return 7;
    return 15; // Q4_K_M
}

struct TensorDef {
    std::string name;
    int64_t ne[3];
    int dims;
    uint32_t layer;
};

bool isRecurrentLayer(const Spec &s, uint32_t il)
{
    return s.arch == "qwen35moe" && (il + 1) % s.fullAttentionInterval != 0;
}

std::vector<TensorDef> tensorDefs(const Spec &s, uint32_t nVocab)
{
    std::vector<TensorDef> d;
    const int64_t E = s.embd, Q = int64_t(s.headDim) * s.heads, KV = int64_t(s.headDim) * s.headsKv;
    d.push_back({"token_embd.weight", {E, nVocab, 1}, 2, 0});
    d.push_back({"output_norm.weight", {E, 1, 1}, 1, 0});
    if (s.arch != "gemma3") // gemma3 ties the output to the embeddings
        d.push_back({"output.weight", {E, nVocab, 1}, 2, s.layers});
    for (uint32_t i = 0; i < s.layers; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        d.push_back({b + "attn_norm.weight", {E, 1, 1}, 1, i});
        if (isRecurrentLayer(s, i)) {
            // Gated delta net (qwen35moe's linear-attention layers).
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
        } else {
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
        if (s.arch == "gemma3" || s.arch == "qwen35moe")
            d.push_back({b + "post_attention_norm.weight", {E, 1, 1}, 1, i});
        if (s.arch != "qwen35moe")
            d.push_back({b + "ffn_norm.weight", {E, 1, 1}, 1, i});
        if (s.arch == "gemma3")
            d.push_back({b + "post_ffw_norm.weight", {E, 1, 1}, 1, i});
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
    return d;
}

// Fills one tensor's bytes with deterministic noise of its type.
// rowScale (optional, one per row) shapes the output layer: word tokens get larger weights
// than byte and control tokens, so a random model writes word salad that rarely ends.
std::vector<uint8_t> randomData(const ggml_tensor *t, uint64_t seed, float scale,
                                const std::vector<float> *rowScale = nullptr)
{
    const int64_t n = ggml_nelements(t);
    std::mt19937_64 gen(seed ^ std::hash<std::string>{}(ggml_get_name(t)));
    std::normal_distribution<float> dist(0.0f, scale);
    const bool isNorm = std::string(ggml_get_name(t)).find("norm") != std::string::npos;
    std::vector<float> f(static_cast<size_t>(n));
    for (auto &x : f)
        x = isNorm ? 1.0f + dist(gen) : dist(gen);
    if (rowScale && t->ne[1] == static_cast<int64_t>(rowScale->size())) {
        for (int64_t r = 0; r < t->ne[1]; ++r)
            for (int64_t c = 0; c < t->ne[0]; ++c)
                f[static_cast<size_t>(r * t->ne[0] + c)] *= (*rowScale)[static_cast<size_t>(r)];
    }
    std::vector<uint8_t> out(ggml_nbytes(t));
    if (t->type == GGML_TYPE_F32) {
        std::memcpy(out.data(), f.data(), out.size());
    } else if (t->type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(f.data(), reinterpret_cast<ggml_fp16_t *>(out.data()), n);
    } else {
        const int64_t perRow = t->ne[0];
        ggml_quantize_chunk(t->type, f.data(), out.data(), 0, n / perRow, perRow, nullptr);
    }
    return out;
}

// Random quantized blocks whose fp16 scales are small and finite, written straight into the
// block layout: no float generation or quantization, so 18 GB take seconds, not an hour.
std::vector<uint8_t> fastRandomData(const ggml_tensor *t, uint64_t seed)
{
    std::vector<uint8_t> out(ggml_nbytes(t));
    uint64_t x = seed ^ (std::hash<std::string>{}(ggml_get_name(t)) | 1);
    for (size_t i = 0; i + 8 <= out.size(); i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(out.data() + i, &x, 8);
    }
    const ggml_fp16_t d = ggml_fp32_to_fp16(0.002f), dmin = ggml_fp32_to_fp16(0.001f);
    const size_t block = ggml_type_size(t->type);
    for (size_t off = 0; off + block <= out.size(); off += block) {
        switch (t->type) {
        case GGML_TYPE_Q4_K: // d, dmin first
            std::memcpy(out.data() + off, &d, 2);
            std::memcpy(out.data() + off + 2, &dmin, 2);
            break;
        case GGML_TYPE_Q6_K: // d last
            std::memcpy(out.data() + off + block - 2, &d, 2);
            break;
        case GGML_TYPE_Q8_0: // d first
            std::memcpy(out.data() + off, &d, 2);
            break;
        default:
            break;
        }
    }
    return out;
}

// Adds `tensors` to `g`, writes metadata, then data (or just the size, for sparse files).
std::string writeFile(const Spec &s, gguf_context *g, const std::vector<ggml_tensor *> &tensors,
                      const std::string &path, const std::vector<float> *outputRows)
{
    for (ggml_tensor *t : tensors)
        gguf_add_tensor(g, t);
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    const std::string tmp = path + ".part";
    if (!gguf_write_to_file(g, tmp.c_str(), true))
        return "cannot write " + tmp;
    const size_t metaSize = gguf_get_meta_size(g);
    const size_t align = gguf_get_alignment(g);
    size_t dataSize = 0;
    if (!tensors.empty()) {
        const int64_t last = static_cast<int64_t>(tensors.size()) - 1;
        dataSize = gguf_get_tensor_offset(g, last) + gguf_get_tensor_size(g, last);
        dataSize = (dataSize + align - 1) / align * align;
    }
    if (s.fill != Fill::Sparse) {
        std::unique_ptr<FILE, decltype(&fclose)> f(std::fopen(tmp.c_str(), "r+b"), &fclose);
        if (!f)
            return "cannot open " + tmp;
        for (size_t i = 0; i < tensors.size(); ++i) {
            const bool isOutput = std::strcmp(ggml_get_name(tensors[i]), "output.weight") == 0;
            const bool quantized = ggml_is_quantized(tensors[i]->type);
            const auto data = s.fill == Fill::Fast && quantized
                                  ? fastRandomData(tensors[i], s.seed)
                                  : randomData(tensors[i], s.seed, s.weightScale, isOutput ? outputRows : nullptr);
            const long off = static_cast<long>(metaSize + gguf_get_tensor_offset(g, static_cast<int64_t>(i)));
            if (std::fseek(f.get(), off, SEEK_SET) != 0 ||
                std::fwrite(data.data(), 1, data.size(), f.get()) != data.size())
                return "write failed (disk full?) at " + tmp;
        }
        if (std::fflush(f.get()) != 0)
            return "write failed (disk full?) at " + tmp;
    }
    std::filesystem::resize_file(tmp, metaSize + dataSize, ec);
    if (ec)
        return "cannot size " + tmp + ": " + ec.message();
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        return "cannot rename to " + path + ": " + ec.message();
    return {};
}

} // namespace

Spec tinyLlama()
{
    Spec s;
    s.arch = "llama";
    s.name = "Shoehorn Tiny Llama";
    return s;
}

Spec tinyQwen3Moe()
{
    Spec s;
    s.arch = "qwen3moe";
    s.name = "Shoehorn Tiny Qwen3 MoE";
    s.experts = 8;
    s.expertsUsed = 2;
    s.expertFf = 32;
    s.ff = 128;
    return s;
}

Spec tinyThinking()
{
    Spec s = tinyQwen3Moe();
    s.name = "Shoehorn Tiny Thinking MoE";
    s.thinkingTemplate = true;
    s.samplingDefaults = true; // like Qwen's own GGUFs
    return s;
}

Spec qwen3_30b_a3b()
{
    Spec s;
    s.arch = "qwen3moe";
    s.name = "Qwen3-30B-A3B (shape fixture)";
    s.layers = 48;
    s.embd = 2048;
    s.heads = 32;
    s.headsKv = 4;
    s.headDim = 128;
    s.ff = 6144;
    s.experts = 128;
    s.expertsUsed = 8;
    s.expertFf = 768;
    s.contextLength = 40960;
    s.vocab = 151936;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec qwen3_30b_a3b_random()
{
    Spec s = qwen3_30b_a3b();
    s.name = "Qwen3-30B-A3B (random weights)";
    s.fill = Fill::Fast;
    return s;
}

Spec llama3_8b()
{
    Spec s;
    s.arch = "llama";
    s.name = "Llama-3.1-8B (shape fixture)";
    s.layers = 32;
    s.embd = 4096;
    s.heads = 32;
    s.headsKv = 8;
    s.headDim = 128;
    s.ff = 14336;
    s.contextLength = 131072;
    s.vocab = 128256;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec qwen35_35b_a3b()
{
    Spec s;
    s.arch = "qwen35moe";
    s.name = "Qwen3.5-35B-A3B (shape fixture)";
    s.layers = 40;
    s.embd = 2048;
    s.heads = 16;
    s.headsKv = 2;
    s.headDim = 256;
    s.ropeDims = 64;
    s.ff = 512;
    s.experts = 256;
    s.expertsUsed = 8;
    s.expertFf = 512;
    s.sharedExpertFf = 512;
    s.ssmConvKernel = 4;
    s.ssmStateSize = 128;
    s.ssmGroupCount = 16;
    s.ssmTimeStepRank = 32;
    s.fullAttentionInterval = 4;
    s.contextLength = 262144;
    s.vocab = 248320;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec gemma3_12b()
{
    Spec s;
    s.arch = "gemma3";
    s.name = "Gemma-3-12B (shape fixture)";
    s.layers = 48;
    s.embd = 3840;
    s.heads = 16;
    s.headsKv = 8;
    s.headDim = 256;
    s.ff = 15360;
    s.slidingWindow = 1024;
    s.contextLength = 131072;
    s.vocab = 262144;
    s.quant = "q4_k_m";
    s.fill = Fill::Sparse;
    return s;
}

Spec benchQwen3Moe()
{
    Spec s = qwen3_30b_a3b();
    s.name = "Shoehorn bench MoE (Qwen3-30B-A3B layer shapes, 2 layers)";
    s.layers = 2; // about 700 MB: big enough that a measurement is not noise, small enough to write
    s.vocab = 32000;
    s.fill = Fill::Random;
    s.weightScale = 0.02f;
    return s;
}

std::vector<std::string> presetNames()
{
    return {"tiny-llama", "tiny-qwen3moe", "tiny-thinking", "qwen3-30b-a3b", "qwen3-30b-a3b-random", "qwen35-35b-a3b",
            "gemma3-12b", "llama3-8b", "bench-qwen3moe"};
}

bool presetByName(const std::string &name, Spec &out)
{
    if (name == "tiny-llama") out = tinyLlama();
    else if (name == "tiny-qwen3moe") out = tinyQwen3Moe();
    else if (name == "tiny-thinking") out = tinyThinking();
    else if (name == "qwen3-30b-a3b") out = qwen3_30b_a3b();
    else if (name == "qwen3-30b-a3b-random") out = qwen3_30b_a3b_random();
    else if (name == "llama3-8b") out = llama3_8b();
    else if (name == "qwen35-35b-a3b") out = qwen35_35b_a3b();
    else if (name == "gemma3-12b") out = gemma3_12b();
    else if (name == "bench-qwen3moe") out = benchQwen3Moe();
    else return false;
    return true;
}

std::string write(const Spec &s, const std::string &path)
{
    if (s.arch != "llama" && s.arch != "qwen3moe" && s.arch != "qwen35moe" && s.arch != "gemma3")
        return "unsupported architecture " + s.arch;
    if (s.arch == "qwen3moe" && (s.experts == 0 || s.expertsUsed == 0))
        return "qwen3moe needs experts";

    const Vocab vocab = makeVocab(s.vocab);
    const uint32_t nVocab = static_cast<uint32_t>(vocab.tokens.size());
    const std::string a = s.arch + ".";

    std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_empty(), &gguf_free);
    gguf_set_val_str(g.get(), "general.architecture", s.arch.c_str());
    gguf_set_val_str(g.get(), "general.name", s.name.c_str());
    if (s.samplingDefaults) {
        gguf_set_val_f32(g.get(), "general.sampling.temp", 0.6f);
        gguf_set_val_f32(g.get(), "general.sampling.top_p", 0.95f);
        gguf_set_val_f32(g.get(), "general.sampling.min_p", 0.0f);
        gguf_set_val_i32(g.get(), "general.sampling.top_k", 20);
    }
    gguf_set_val_u32(g.get(), "general.file_type", static_cast<uint32_t>(ftypeOf(s.quant)));
    gguf_set_val_u32(g.get(), "general.quantization_version", 2);
    gguf_set_val_u32(g.get(), (a + "context_length").c_str(), s.contextLength);
    gguf_set_val_u32(g.get(), (a + "embedding_length").c_str(), s.embd);
    gguf_set_val_u32(g.get(), (a + "block_count").c_str(), s.layers);
    gguf_set_val_u32(g.get(), (a + "feed_forward_length").c_str(), s.ff);
    gguf_set_val_u32(g.get(), (a + "attention.head_count").c_str(), s.heads);
    gguf_set_val_u32(g.get(), (a + "attention.head_count_kv").c_str(), s.headsKv);
    gguf_set_val_u32(g.get(), (a + "attention.key_length").c_str(), s.headDim);
    gguf_set_val_u32(g.get(), (a + "attention.value_length").c_str(), s.headDim);
    gguf_set_val_u32(g.get(), (a + "rope.dimension_count").c_str(), s.ropeDims ? s.ropeDims : s.headDim);
    gguf_set_val_f32(g.get(), (a + "rope.freq_base").c_str(), 1000000.0f);
    gguf_set_val_f32(g.get(), (a + "attention.layer_norm_rms_epsilon").c_str(), 1e-6f);
    gguf_set_val_u32(g.get(), (a + "vocab_size").c_str(), nVocab);
    if (s.slidingWindow > 0)
        gguf_set_val_u32(g.get(), (a + "attention.sliding_window").c_str(), s.slidingWindow);
    if (s.arch == "qwen35moe") {
        gguf_set_val_u32(g.get(), (a + "ssm.conv_kernel").c_str(), s.ssmConvKernel);
        gguf_set_val_u32(g.get(), (a + "ssm.inner_size").c_str(), s.ssmStateSize * s.ssmTimeStepRank);
        gguf_set_val_u32(g.get(), (a + "ssm.state_size").c_str(), s.ssmStateSize);
        gguf_set_val_u32(g.get(), (a + "ssm.time_step_rank").c_str(), s.ssmTimeStepRank);
        gguf_set_val_u32(g.get(), (a + "ssm.group_count").c_str(), s.ssmGroupCount);
        gguf_set_val_u32(g.get(), (a + "full_attention_interval").c_str(), s.fullAttentionInterval);
        const int32_t sections[4] = {int32_t(s.ropeDims / 6), int32_t(s.ropeDims / 6), int32_t(s.ropeDims / 2 - 2 * (s.ropeDims / 6)), 0};
        gguf_set_arr_data(g.get(), (a + "rope.dimension_sections").c_str(), GGUF_TYPE_INT32, sections, 4);
    }
    if (s.sharedExpertFf > 0)
        gguf_set_val_u32(g.get(), (a + "expert_shared_feed_forward_length").c_str(), s.sharedExpertFf);
    if (s.experts > 0) {
        gguf_set_val_u32(g.get(), (a + "expert_count").c_str(), s.experts);
        gguf_set_val_u32(g.get(), (a + "expert_used_count").c_str(), s.expertsUsed);
        gguf_set_val_u32(g.get(), (a + "expert_feed_forward_length").c_str(), s.expertFf);
    }
    gguf_set_val_str(g.get(), "tokenizer.ggml.model", "llama");
    gguf_set_val_str(g.get(), "tokenizer.ggml.pre", "default");
    std::vector<const char *> toks;
    for (const auto &t : vocab.tokens)
        toks.push_back(t.c_str());
    gguf_set_arr_str(g.get(), "tokenizer.ggml.tokens", toks.data(), toks.size());
    gguf_set_arr_data(g.get(), "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, vocab.scores.data(), vocab.scores.size());
    gguf_set_arr_data(g.get(), "tokenizer.ggml.token_type", GGUF_TYPE_INT32, vocab.types.data(), vocab.types.size());
    gguf_set_val_u32(g.get(), "tokenizer.ggml.bos_token_id", 1);
    gguf_set_val_u32(g.get(), "tokenizer.ggml.eos_token_id", 4);
    gguf_set_val_u32(g.get(), "tokenizer.ggml.unknown_token_id", 0);
    gguf_set_val_u32(g.get(), "tokenizer.ggml.padding_token_id", 2);
    gguf_set_val_bool(g.get(), "tokenizer.ggml.add_bos_token", true);
    gguf_set_val_bool(g.get(), "tokenizer.ggml.add_eos_token", false);
    gguf_set_val_bool(g.get(), "tokenizer.ggml.add_space_prefix", false);
    gguf_set_val_str(g.get(), "tokenizer.chat_template", s.thinkingTemplate ? kChatMlThinking : kChatMl);

    const auto defs = tensorDefs(s, nVocab);
    ggml_init_params ip{ggml_tensor_overhead() * (defs.size() + 8), nullptr, true};
    std::unique_ptr<ggml_context, decltype(&ggml_free)> meta(ggml_init(ip), &ggml_free);
    std::vector<ggml_tensor *> tensors;
    for (const auto &d : defs) {
        const ggml_type type = d.dims == 1 ? GGML_TYPE_F32 : typeFor(s, d.name, d.layer, d.ne[0]);
        ggml_tensor *t = ggml_new_tensor(meta.get(), type, d.dims, d.ne);
        ggml_set_name(t, d.name.c_str());
        tensors.push_back(t);
    }
    std::vector<float> outputRows(nVocab);
    for (uint32_t r = 0; r < nVocab; ++r)
        outputRows[r] = vocab.types[r] == Normal ? 2.0f : 0.5f;

    if (s.splits <= 1)
        return writeFile(s, g.get(), tensors, path, &outputRows);

    // llama.cpp's split layout: the first part has all metadata, every part has split.*
    // keys and a contiguous share of the tensors.
    const std::string prefix = path.size() > 5 && path.ends_with(".gguf") ? path.substr(0, path.size() - 5) : path;
    const size_t per = (tensors.size() + s.splits - 1) / s.splits;
    for (uint32_t k = 0; k < s.splits; ++k) {
        std::unique_ptr<gguf_context, decltype(&gguf_free)> part(gguf_init_empty(), &gguf_free);
        if (k == 0)
            gguf_set_kv(part.get(), g.get());
        gguf_set_val_u16(part.get(), "split.no", static_cast<uint16_t>(k));
        gguf_set_val_u16(part.get(), "split.count", static_cast<uint16_t>(s.splits));
        gguf_set_val_i32(part.get(), "split.tensors.count", static_cast<int32_t>(tensors.size()));
        const size_t from = std::min(tensors.size(), k * per), to = std::min(tensors.size(), from + per);
        std::vector<ggml_tensor *> share(tensors.begin() + static_cast<std::ptrdiff_t>(from),
                                         tensors.begin() + static_cast<std::ptrdiff_t>(to));
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", k + 1, s.splits);
        const std::string err = writeFile(s, part.get(), share, prefix + suffix, &outputRows);
        if (!err.empty())
            return err;
    }
    return {};
}

} // namespace shoehorn::fixtures
