#pragma once

#include "chatsession.h"
#include "error.h"
#include "settings.h"

#include <chat.h>
#include <llama.h>

#include <set>
#include <string>
#include <vector>

namespace shoehorn {

// A history rendered by the chat template, with what the output parser needs to know.
struct ChatPrompt {
    std::string text;
    std::string startTag;                 // reasoning block start, e.g. "<think>"
    std::vector<std::string> endTags;
    bool startInReasoning = false;        // the generation prompt already opened the block
    std::vector<std::string> stops;       // the caller's and the template's
    std::vector<std::string> visibleText; // tags the output parser needs to see (as text)
    std::set<llama_token> visibleSpecial; // ...and those of them that are one control token

    // Fills visibleSpecial from visibleText with this vocabulary.
    void resolveVisible(const llama_vocab *vocab);
};

// The model's Jinja chat template through llama.cpp's common/chat, with a ChatML fallback
// when the model's own template cannot be parsed.
class ChatTemplates
{
public:
    static Result<ChatTemplates> create(const llama_model *model);

    Result<ChatPrompt> apply(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                             const llama_vocab *vocab) const;
    // The same without resolving the visible tags to tokens (the template sandbox's helper).
    Result<ChatPrompt> render(const std::vector<ChatMessage> &history, const GenerationOptions &options) const;
    bool supportsThinking() const;
    // Why the model's own template could not be used, when ChatML stands in for it; empty when
    // the file's template is used. fallbackTemplate(): what stands in (llama.cpp's
    // --chat-template takes it as is).
    const std::string &fallbackReason() const { return m_fallbackReason; }
    static const char *fallbackTemplate();

private:
    common_chat_templates_ptr m_templates;
    std::string m_fallbackReason;
};

} // namespace shoehorn
