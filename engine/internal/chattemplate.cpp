#include "chattemplate.h"

#include <common.h>

namespace shoehorn {

namespace {

// Used when a model's own Jinja template cannot be parsed.
const char *kChatMlTemplate =
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}";

std::string rtrim(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r' || s.back() == '\t'))
        s.pop_back();
    return s;
}

common_chat_templates_inputs inputs(const std::vector<ChatMessage> &history, const GenerationOptions &options)
{
    common_chat_templates_inputs in;
    in.use_jinja = true;
    in.add_generation_prompt = true;
    in.enable_thinking = options.enableThinking;
    in.reasoning_format = COMMON_REASONING_FORMAT_DEEPSEEK;
    in.chat_template_kwargs = options.templateKwargs;
    in.chat_template_kwargs["enable_thinking"] = options.enableThinking ? "true" : "false";
    for (const auto &m : history) {
        common_chat_msg msg;
        msg.role = m.role;
        msg.content = m.content;
        msg.reasoning_content = m.reasoning;
        in.messages.push_back(std::move(msg));
    }
    return in;
}

} // namespace

Result<ChatTemplates> ChatTemplates::create(const llama_model *model)
{
    ChatTemplates t;
    try {
        t.m_templates = common_chat_templates_init(model, "");
    } catch (const std::exception &e) {
        t.m_templates.reset();
        t.m_fallbackReason = e.what();
    }
    if (!t.m_templates) {
        if (t.m_fallbackReason.empty())
            t.m_fallbackReason = "llama.cpp could not set it up";
        try {
            t.m_templates = common_chat_templates_init(model, kChatMlTemplate);
        } catch (const std::exception &e) {
            return Error{ErrorCode::TemplateFailed, e.what()};
        }
    }
    if (!t.m_templates)
        return Error{ErrorCode::TemplateFailed, "llama.cpp could not set up a chat template, not even ChatML"};
    return t;
}

const char *ChatTemplates::fallbackTemplate()
{
    return kChatMlTemplate;
}

bool ChatTemplates::supportsThinking() const
{
    return common_chat_templates_support_enable_thinking(m_templates.get());
}

Result<ChatPrompt> ChatTemplates::apply(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                                        const llama_vocab *vocab) const
{
    auto p = render(history, options);
    if (p)
        p->resolveVisible(vocab);
    return p;
}

Result<ChatPrompt> ChatTemplates::render(const std::vector<ChatMessage> &history, const GenerationOptions &options) const
{
    try {
        common_chat_params params = common_chat_templates_apply(m_templates.get(), inputs(history, options));
        ChatPrompt p;
        p.text = std::move(params.prompt);
        if (params.supports_thinking && !params.thinking_end_tags.empty()) {
            p.startTag = params.thinking_start_tag;
            p.endTags = params.thinking_end_tags;
            const std::string gen = rtrim(params.generation_prompt);
            const std::string tag = rtrim(p.startTag);
            p.startInReasoning = options.enableThinking && !tag.empty() && gen.size() >= tag.size() &&
                                 gen.compare(gen.size() - tag.size(), tag.size(), tag) == 0;
        }
        p.stops = options.stop;
        for (const auto &s : params.additional_stops)
            p.stops.push_back(s);
        p.visibleText = params.preserved_tokens;
        if (!p.startTag.empty())
            p.visibleText.push_back(rtrim(p.startTag));
        for (const auto &t : p.endTags)
            p.visibleText.push_back(rtrim(t));
        return p;
    } catch (const std::exception &e) {
        return Error{ErrorCode::TemplateFailed, e.what()};
    }
}

void ChatPrompt::resolveVisible(const llama_vocab *vocab)
{
    visibleSpecial.clear();
    for (const auto &t : visibleText) {
        const auto ids = common_tokenize(vocab, t, false, true);
        if (ids.size() == 1)
            visibleSpecial.insert(ids.front());
    }
}

} // namespace shoehorn
