#include "modelchecks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
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
    for (size_t i = 0; i < tokens->size(); ++i) {
        const std::string &t = (*tokens)[i];
        if (t.empty())
            continue; // llama.cpp renames empty tokens "[EMPTY_i]"
        const auto [it, fresh] = seen.emplace(t, i);
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

} // namespace shoehorn::internal
