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
    std::set<llama_token> visibleSpecial; // control tokens the output parser needs to see
};

// The model's Jinja chat template through llama.cpp's common/chat, with a ChatML fallback
// when the model's own template cannot be parsed.
class ChatTemplates
{
public:
    static Result<ChatTemplates> create(const llama_model *model);

    Result<ChatPrompt> apply(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                             const llama_vocab *vocab) const;
    bool supportsThinking() const;

private:
    common_chat_templates_ptr m_templates;
};

} // namespace shoehorn
