#pragma once

#include "error.h"
#include "model.h"
#include "settings.h"

#include <llama-cpp.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct common_chat_templates;

namespace shoehorn {
class CpuThreadPools;
}

namespace shoehorn {

struct ChatMessage {
    std::string role;      // "system", "user", "assistant"
    std::string content;
    std::string reasoning; // assistant only
};

enum class StopReason { None, EndOfGeneration, StopString, MaxTokens, ContextFull, Cancelled };
const char *stopReasonName(StopReason r);

struct GenerationStats {
    int promptTokens = 0;       // the whole formatted prompt
    int promptEvaluated = 0;    // decoded this turn (prompt - reused)
    int reusedTokens = 0;       // taken from the KV cache of the previous turn
    double promptMs = 0;
    double promptTokensPerSecond = 0;
    int generatedTokens = 0;
    double generationMs = 0;
    double generationTokensPerSecond = 0;
    double timeToFirstTokenMs = 0;
    int trimmedMessages = 0;    // oldest messages dropped to fit n_ctx
    int contextUsed = 0;        // tokens in the KV cache after the answer
    int contextSize = 0;
    StopReason stopReason = StopReason::None;
};

struct GenerationResult {
    std::string content;
    std::string reasoning;
    GenerationStats stats;
};

struct StreamCallbacks {
    // Called per token with UTF-8-complete text; either part may be empty.
    std::function<void(std::string_view content, std::string_view reasoning)> onDelta;
    // Prompt processing progress, in tokens, after each batch.
    std::function<void(int done, int total)> onPrefill;
    // After each generated token: how many so far and the tokens in the KV cache.
    std::function<void(int generated, int contextUsed)> onToken;
};

// One conversation's llama_context. The caller passes the whole history each turn; the
// session finds what its KV cache already holds and decodes only the rest.
class ChatSession
{
public:
    static Result<std::unique_ptr<ChatSession>> create(std::shared_ptr<Model> model, const ContextSettings &settings);
    ~ChatSession();
    ChatSession(const ChatSession &) = delete;
    ChatSession &operator=(const ChatSession &) = delete;

    Result<GenerationResult> generate(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                                      const StreamCallbacks &callbacks = {},
                                      const std::atomic<bool> *cancel = nullptr);

    // The prompt text the template makes for this history (with the generation prompt).
    Result<std::string> formatPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options) const;

    void clearCache();
    int cachedTokens() const { return static_cast<int>(m_cached.size()); }
    uint32_t contextSize() const;
    const ContextSettings &settings() const { return m_settings; }
    const std::shared_ptr<Model> &model() const { return m_model; }
    const llama_context *context() const { return m_ctx.get(); }
    bool templateSupportsThinking() const;

private:
    ChatSession() = default;
    struct Prompt;
    Result<Prompt> buildPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options) const;
    std::vector<llama_token> tokenize(const std::string &text) const;
    std::string piece(llama_token token, bool special) const;
    size_t reusablePrefix(const Prompt &prompt, std::vector<llama_token> &tokens) const;
    static bool abortCallback(void *data);

    std::shared_ptr<Model> m_model;
    ContextSettings m_settings;
    std::unique_ptr<CpuThreadPools> m_threads; // declared before m_ctx: outlives the context
    llama_context_ptr m_ctx;
    std::unique_ptr<common_chat_templates, void (*)(common_chat_templates *)> m_templates{nullptr, nullptr};
    std::vector<llama_token> m_cached; // what the KV cache holds, positions 0..n-1
    std::string m_cachedText;          // their text, special tokens included
    std::atomic<const std::atomic<bool> *> m_cancel{nullptr};
};

} // namespace shoehorn
