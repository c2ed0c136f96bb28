#include "modelchecks.h"

#include "backends.h"

#include <ggml-cpu.h>
#include <ggml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string_view>
#include <unordered_map>

namespace shoehorn::internal {

namespace {

std::string realText(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// A token as it may appear in a one-line message: at most 40 bytes, control bytes escaped.
std::string tokenText(std::string_view t)
{
    std::string out;
    for (char c : t.substr(0, 40)) {
        if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += buf;
        } else {
            out += c;
        }
    }
    return t.size() > 40 ? out + "..." : out;
}

std::optional<Error> checkExperts(const GgufFile &g, const std::string &a)
{
    const uint64_t count = g.uint(a + "expert_count").value_or(0);
    const uint64_t used = g.uint(a + "expert_used_count").value_or(0); // max over layers
    const std::string countKey = a + "expert_count", usedKey = a + "expert_used_count";
    if (count > kLlamaMaxExperts)
        return Error{ErrorCode::Corrupt, countKey + " is " + std::to_string(count) + ", more than llama.cpp's limit of " +
                                             std::to_string(kLlamaMaxExperts) + " experts"};
    if (used > count)
        return Error{ErrorCode::Corrupt, usedKey + " is " + std::to_string(used) + " but the model has " +
                                             std::to_string(count) + " experts"};
    if (count > 0 && used == 0)
        return Error{ErrorCode::Corrupt, usedKey + " is 0 but the model has " + std::to_string(count) + " experts"};
    return std::nullopt;
}

} // namespace

std::optional<Error> checkLlamaLimits(const GgufFile &g, const ModelInfo &info)
{
    const std::string a = info.architecture + ".";
    if (const auto layers = g.uint(a + "block_count"); layers && *layers > kLlamaMaxLayers)
        return Error{ErrorCode::Corrupt, a + "block_count is " + std::to_string(*layers) +
                                             ", more than llama.cpp's limit of " + std::to_string(kLlamaMaxLayers) +
                                             " layers"};
    if (auto e = checkExperts(g, a))
        return e;
    for (const char *key : {"attention.layer_norm_rms_epsilon", "attention.layer_norm_epsilon"}) {
        const auto eps = g.real(a + key);
        if (eps && (!std::isfinite(*eps) || *eps < 0))
            return Error{ErrorCode::Corrupt, a + key + " is " + realText(*eps) + ", not a small positive number"};
    }
    return std::nullopt;
}

std::optional<Error> checkVocabulary(const GgufFile &g)
{
    const auto model = g.string("tokenizer.ggml.model");
    if (!model)
        return std::nullopt;
    static const std::array<std::string_view, 9> known = {"llama", "bert", "gpt2", "hybriddna", "whitespace",
                                                          "t5", "rwkv", "plamo2", "gemma4"};
    if (*model == "none" || *model == "no_vocab")
        return Error{ErrorCode::Corrupt, "tokenizer.ggml.model is '" + *model +
                                             "': the model has no vocabulary, so it cannot read or write text"};
    if (std::find(known.begin(), known.end(), *model) == known.end())
        return Error{ErrorCode::Corrupt, "tokenizer.ggml.model is '" + tokenText(*model) +
                                             "', a tokenizer llama.cpp does not know"};
    const auto tokens = g.stringArray("tokenizer.ggml.tokens");
    if (!tokens)
        return std::nullopt;
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(tokens->size());
    std::deque<std::string> names; // the renamed empty tokens (stable addresses for the views)
    for (size_t i = 0; i < tokens->size(); ++i) {
        const std::string &t = (*tokens)[i];
        // llama.cpp renames an empty token "[EMPTY_i]", which may then be another token's text.
        const std::string named = t.empty() ? "[EMPTY_" + std::to_string(i) + "]" : std::string();
        const auto [it, fresh] = seen.emplace(t.empty() ? std::string_view(names.emplace_back(named)) : std::string_view(t), i);
        if (!fresh)
            return Error{ErrorCode::Corrupt, "tokenizer.ggml.tokens has the token '" + tokenText(t) + "' twice (at " +
                                                 std::to_string(it->second) + " and " + std::to_string(i) + ")"};
    }
    if (*model == "llama") {
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            if (!seen.count(name))
                return Error{ErrorCode::Corrupt, std::string("tokenizer.ggml.tokens has no byte token ") + name +
                                                     ", which a SentencePiece ('llama') vocabulary needs"};
        }
    }
    return std::nullopt;
}

std::optional<Error> checkDecodeHyperparameters(const GgufFile &g, const ModelInfo &info)
{
    const std::string a = info.architecture + ".";
    // llama.cpp's server caps every slot at the trained context (n_ctx_slot): at 0 no prompt fits,
    // and its "exceeds the context" error asserts a context above 0 (server-context.cpp:2068).
    if (const auto trained = g.uint(a + "context_length"); trained && *trained == 0)
        return Error{ErrorCode::Corrupt, a + "context_length is 0: the model would have no room for a prompt "
                                             "(llama.cpp limits each chat to the trained context)"};
    if (const auto causal = g.uint(a + "attention.causal"); causal && *causal == 0)
        return Error{ErrorCode::Corrupt, a + "attention.causal is false: this is an embedding or encoder model, "
                                             "not one that writes answers"};
    for (const char *suffix : {"", "_swa"}) {
        const std::string key = a + "rope.dimension_count" + suffix;
        const auto rot = g.uint(key);
        const uint64_t head = std::string(suffix).empty() ? info.headSizeK
                                                          : g.uint(a + "attention.key_length_swa").value_or(info.headSizeK);
        if (rot && (*rot % 2 != 0 || (head > 0 && *rot > head)))
            return Error{ErrorCode::Corrupt, key + " is " + std::to_string(*rot) + ", not an even number up to the head size " +
                                                 std::to_string(head)};
    }
    const std::vector<int64_t> sections = g.intArray(a + "rope.dimension_sections");
    if (!sections.empty()) {
        int64_t sum = 0, firstThree = 0;
        for (size_t i = 0; i < sections.size(); ++i) {
            if (sections[i] < 0 || sections[i] > (1 << 24))
                return Error{ErrorCode::Corrupt, a + "rope.dimension_sections has the entry " + std::to_string(sections[i])};
            sum += sections[i];
            if (i < 3)
                firstThree += sections[i];
        }
        if (firstThree == 0 || (info.headSizeK > 0 && sum > int64_t(info.headSizeK)))
            return Error{ErrorCode::Corrupt, a + "rope.dimension_sections add up to " + std::to_string(sum) +
                                                 (firstThree == 0 ? " with the first three all 0" : ", more than the head size " +
                                                                                                       std::to_string(info.headSizeK))};
    }
    // Attention weights and no heads: llama.cpp stops at the first one's shape ("check_tensor_dims"),
    // after the model list and the plan showed "heads 0".
    if (const auto heads = g.uint(a + "attention.head_count"); heads && *heads == 0)
        for (int64_t i = 0; i < g.tensorCount(); ++i)
            if (const ggml_tensor *t = g.tensor(i); t && std::string_view(ggml_get_name(t)).find(".attn_q.weight") !=
                                                              std::string_view::npos)
                return Error{ErrorCode::Corrupt, a + "attention.head_count is 0, and the model has attention weights (" +
                                                     ggml_get_name(t) + ")"};
    // llama.cpp multiplies these in 32 bits: a product that wraps would pass its shape checks.
    if (uint64_t(info.headSizeK) * info.headCount > (1u << 24) || uint64_t(info.headSizeV) * info.headCount > (1u << 24))
        return Error{ErrorCode::Corrupt, a + "attention.key_length times head_count is absurdly large"};
    return std::nullopt;
}

std::optional<Error> checkTensorTypes(const GgufFile &part)
{
    for (int64_t i = 0; i < part.tensorCount(); ++i) {
        const ggml_tensor *t = part.tensor(i);
        if (!t)
            return Error{ErrorCode::Corrupt, "tensor table is inconsistent"};
        const std::string name = ggml_get_name(t);
        for (int d = 0; d < GGML_MAX_DIMS; ++d)
            if (t->ne[d] < 1)
                return Error{ErrorCode::Corrupt, "tensor '" + name + "' has a dimension of size " + std::to_string(t->ne[d])};
        const char *type = ggml_type_name(t->type);
        if (ggml_n_dims(t) == 1 && t->type != GGML_TYPE_F32)
            return Error{ErrorCode::Corrupt, "tensor '" + name + "' is " + type +
                                                 "; a one-dimensional tensor (a norm, bias or scale) must be F32"};
        const bool multiplies = t->type == GGML_TYPE_F32 ||
                                (ggml_get_type_traits(t->type)->to_float && cpuMultiplies(t->type));
        if (!multiplies)
            return Error{ErrorCode::Corrupt, "tensor '" + name + "' is of type " + type +
                                                 ", which llama.cpp cannot compute with as a weight"};
    }
    return std::nullopt;
}

} // namespace shoehorn::internal
