#include "fixturesinternal.h"

#include <algorithm>
#include <cstdio>

namespace shoehorn::fixtures::detail {

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

} // namespace

Vocab makeVocab(uint32_t minSize, bool controlHighBytes)
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
        add(buf, 0, controlHighBytes && b >= 0x80 ? Control : Byte);
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

void setTokenizer(gguf_context *g, const Spec &s, const Vocab &vocab)
{
    gguf_set_val_str(g, "tokenizer.ggml.model", "llama");
    gguf_set_val_str(g, "tokenizer.ggml.pre", "default");
    std::vector<const char *> toks;
    for (const auto &t : vocab.tokens)
        toks.push_back(t.c_str());
    gguf_set_arr_str(g, "tokenizer.ggml.tokens", toks.data(), toks.size());
    gguf_set_arr_data(g, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, vocab.scores.data(), vocab.scores.size());
    gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, vocab.types.data(), vocab.types.size());
    gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", 1);
    gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", 4);
    gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", 0);
    gguf_set_val_u32(g, "tokenizer.ggml.padding_token_id", 2);
    gguf_set_val_bool(g, "tokenizer.ggml.add_bos_token", true);
    gguf_set_val_bool(g, "tokenizer.ggml.add_eos_token", false);
    gguf_set_val_bool(g, "tokenizer.ggml.add_space_prefix", false);
    const std::string tmpl = !s.chatTemplate.empty() ? s.chatTemplate : s.thinkingTemplate ? kChatMlThinking : kChatMl;
    gguf_set_val_str(g, "tokenizer.chat_template", tmpl.c_str());
}

std::vector<float> outputRowScales(const Vocab &vocab)
{
    const uint32_t nVocab = static_cast<uint32_t>(vocab.tokens.size());
    std::vector<float> outputRows(nVocab);
    for (uint32_t r = 0; r < nVocab; ++r)
        outputRows[r] = vocab.types[r] == Normal ? 2.0f : 0.5f;
    return outputRows;
}

} // namespace shoehorn::fixtures::detail
