#include "chatsession.h"

#include "candidatesampler.h"

#include "llamaparams.h"
#include "logcapture.h"
#include "textstream.h"

#include <chat.h>
#include <common.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace shoehorn {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

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

} // namespace

const char *stopReasonName(StopReason r)
{
    switch (r) {
    case StopReason::None: return "none";
    case StopReason::EndOfGeneration: return "eog";
    case StopReason::StopString: return "stop-string";
    case StopReason::MaxTokens: return "max-tokens";
    case StopReason::ContextFull: return "context-full";
    case StopReason::Cancelled: return "cancelled";
    }
    return "none";
}

struct ChatSession::Prompt {
    std::string text;
    int trimmed = 0;
    std::string startTag;
    std::vector<std::string> endTags;
    bool startInReasoning = false;
    std::vector<std::string> stops;
    std::set<llama_token> visibleSpecial; // control tokens the output parser needs to see
    std::vector<llama_token> tokens;      // filled by reusablePrefix()
};

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<Model> model, const ContextSettings &settings)
{
    if (!model)
        return Error{ErrorCode::NoModel, "no model loaded"};
    if (!isKvCacheType(settings.typeK) || !isKvCacheType(settings.typeV))
        return Error{ErrorCode::InvalidArgument, "unknown KV cache type " + settings.typeK + "/" + settings.typeV};

    LogCapture capture;
    llama_context_params cp = contextParams(settings);

    auto session = std::unique_ptr<ChatSession>(new ChatSession());
    cp.abort_callback = &ChatSession::abortCallback;
    cp.abort_callback_data = session.get();

    llama_context *ctx = llama_init_from_model(model->get(), cp);
    if (!ctx) {
        const std::string why = capture.lastError().empty() ? "llama.cpp could not create the context"
                                                            : capture.lastError();
        return Error{looksLikeOutOfMemory(capture.all()) ? ErrorCode::OutOfMemory : ErrorCode::ContextFailed, why};
    }
    session->m_ctx.reset(ctx);
    session->m_threads = std::make_unique<CpuThreadPools>(settings);
    session->m_threads->attach(ctx);
    session->m_model = std::move(model);
    session->m_settings = settings;
    session->m_settings.contextSize = llama_n_ctx(ctx);

    try {
        session->m_templates = {common_chat_templates_init(session->m_model->get(), "").release(),
                                &common_chat_templates_free};
    } catch (const std::exception &) {
        session->m_templates = {nullptr, nullptr};
    }
    if (!session->m_templates) {
        try {
            session->m_templates = {common_chat_templates_init(session->m_model->get(), kChatMlTemplate).release(),
                                    &common_chat_templates_free};
        } catch (const std::exception &e) {
            return Error{ErrorCode::TemplateFailed, e.what()};
        }
    }
    return session;
}

ChatSession::~ChatSession() = default;

bool ChatSession::abortCallback(void *data)
{
    const auto *self = static_cast<ChatSession *>(data);
    const std::atomic<bool> *flag = self->m_cancel.load(std::memory_order_relaxed);
    return flag && flag->load(std::memory_order_relaxed);
}

uint32_t ChatSession::contextSize() const
{
    return llama_n_ctx(m_ctx.get());
}

bool ChatSession::templateSupportsThinking() const
{
    return common_chat_templates_support_enable_thinking(m_templates.get());
}

void ChatSession::clearCache()
{
    llama_memory_clear(llama_get_memory(m_ctx.get()), true);
    m_cached.clear();
    m_cachedText.clear();
}

std::vector<llama_token> ChatSession::tokenize(const std::string &text) const
{
    // The full prompt starts empty-cache runs; add BOS only there (see reusablePrefix).
    return common_tokenize(m_model->vocab(), text, false, true);
}

std::string ChatSession::piece(llama_token token, bool special) const
{
    return common_token_to_piece(m_model->vocab(), token, special);
}

Result<ChatSession::Prompt> ChatSession::buildPrompt(const std::vector<ChatMessage> &history,
                                                     const GenerationOptions &options) const
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
    try {
        common_chat_params params = common_chat_templates_apply(m_templates.get(), in);
        Prompt p;
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
        std::vector<std::string> visible = params.preserved_tokens;
        if (!p.startTag.empty())
            visible.push_back(rtrim(p.startTag));
        for (const auto &t : p.endTags)
            visible.push_back(rtrim(t));
        for (const auto &t : visible) {
            const auto ids = common_tokenize(m_model->vocab(), t, false, true);
            if (ids.size() == 1)
                p.visibleSpecial.insert(ids.front());
        }
        return p;
    } catch (const std::exception &e) {
        return Error{ErrorCode::TemplateFailed, e.what()};
    }
}

Result<std::string> ChatSession::formatPrompt(const std::vector<ChatMessage> &history,
                                              const GenerationOptions &options) const
{
    auto p = buildPrompt(history, options);
    if (!p)
        return p.error();
    return p->text;
}

size_t ChatSession::reusablePrefix(const Prompt &prompt, std::vector<llama_token> &tokens) const
{
    // Fast path: the new prompt continues exactly the text in the cache (the usual next turn).
    // Tokenizing only the new suffix keeps the previous answer's own tokens, so the
    // second turn decodes just the new message.
    if (!m_cached.empty() && prompt.text.size() > m_cachedText.size() &&
        prompt.text.compare(0, m_cachedText.size(), m_cachedText) == 0) {
        tokens = m_cached;
        const auto rest = tokenize(prompt.text.substr(m_cachedText.size()));
        tokens.insert(tokens.end(), rest.begin(), rest.end());
        return m_cached.size();
    }
    // Otherwise tokenize everything and keep the common token prefix (an edited or
    // regenerated turn keeps everything before it).
    tokens = common_tokenize(m_model->vocab(), prompt.text, true, true);
    size_t n = 0;
    while (n < tokens.size() && n < m_cached.size() && tokens[n] == m_cached[n])
        ++n;
    return n;
}

Result<GenerationResult> ChatSession::generate(const std::vector<ChatMessage> &history,
                                               const GenerationOptions &options, const StreamCallbacks &callbacks,
                                               const std::atomic<bool> *cancel)
{
    const auto t0 = Clock::now();
    LogCapture capture;
    const llama_vocab *vocab = m_model->vocab();
    const int nCtx = static_cast<int>(contextSize());
    // Room the answer needs; the prompt is trimmed to leave it.
    const int reserve = options.maxTokens > 0 ? std::min(options.maxTokens, nCtx / 2) : std::min(512, nCtx / 4);

    std::vector<ChatMessage> msgs = history;
    int trimmed = 0;
    Prompt prompt;
    size_t keep = 0;
    for (;;) {
        auto p = buildPrompt(msgs, options);
        if (!p)
            return p.error();
        prompt = std::move(*p);
        keep = reusablePrefix(prompt, prompt.tokens);
        if (static_cast<int>(prompt.tokens.size()) + reserve <= nCtx)
            break;
        // Drop the oldest whole message after the system prompt; never the last one.
        const size_t first = (!msgs.empty() && msgs.front().role == "system") ? 1 : 0;
        if (msgs.size() <= first + 1)
            return Error{ErrorCode::PromptTooLong, "the message needs " + std::to_string(prompt.tokens.size()) +
                                                       " tokens; the context holds " + std::to_string(nCtx)};
        msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(first));
        ++trimmed;
        // A dangling assistant answer at the front makes no sense without its question.
        while (msgs.size() > first + 1 && msgs[first].role == "assistant") {
            msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(first));
            ++trimmed;
        }
    }
    if (prompt.tokens.empty())
        return Error{ErrorCode::TokenizeFailed, "the prompt is empty"};

    // At least one token must be decoded to get logits for the first answer token.
    if (keep >= prompt.tokens.size())
        keep = prompt.tokens.size() - 1;
    llama_memory_t mem = llama_get_memory(m_ctx.get());
    if (keep < m_cached.size() && !llama_memory_seq_rm(mem, 0, static_cast<llama_pos>(keep), -1)) {
        // Recurrent state cannot roll back: start over.
        llama_memory_clear(mem, true);
        keep = 0;
    }
    m_cached.resize(std::min(keep, m_cached.size()));
    m_cachedText.clear(); // valid again once the prompt is in

    m_cancel.store(cancel);
    struct CancelReset {
        std::atomic<const std::atomic<bool> *> &ref;
        ~CancelReset() { ref.store(nullptr); }
    } cancelReset{m_cancel};

    GenerationResult result;
    GenerationStats &st = result.stats;
    st.promptTokens = static_cast<int>(prompt.tokens.size());
    st.reusedTokens = static_cast<int>(keep);
    st.trimmedMessages = trimmed;
    st.contextSize = nCtx;

    // Prefill in n_batch chunks.
    const auto tPrompt = Clock::now();
    const int total = static_cast<int>(prompt.tokens.size() - keep);
    const int batch = static_cast<int>(llama_n_batch(m_ctx.get()));
    for (size_t i = keep; i < prompt.tokens.size();) {
        const int n = std::min<int>(batch, static_cast<int>(prompt.tokens.size() - i));
        const int rc = llama_decode(m_ctx.get(), llama_batch_get_one(prompt.tokens.data() + i, n));
        if (rc == 2 || (cancel && cancel->load())) {
            // Aborted mid-prompt: what was decoded is unknown, so forget the cache.
            clearCache();
            st.stopReason = StopReason::Cancelled;
            st.promptMs = msSince(tPrompt);
            return result;
        }
        if (rc != 0) {
            clearCache();
            const std::string why = capture.lastError();
            return Error{rc == -2 || looksLikeOutOfMemory(capture.all()) ? ErrorCode::OutOfMemory
                                                                          : ErrorCode::DecodeFailed,
                         "llama_decode returned " + std::to_string(rc) + (why.empty() ? "" : ": " + why)};
        }
        m_cached.insert(m_cached.end(), prompt.tokens.begin() + static_cast<std::ptrdiff_t>(i),
                        prompt.tokens.begin() + static_cast<std::ptrdiff_t>(i + static_cast<size_t>(n)));
        i += static_cast<size_t>(n);
        if (callbacks.onPrefill)
            callbacks.onPrefill(static_cast<int>(i - keep), total);
    }
    m_cachedText = prompt.text;
    st.promptEvaluated = total;
    st.promptMs = msSince(tPrompt);
    st.promptTokensPerSecond = st.promptMs > 0 ? total * 1000.0 / st.promptMs : 0;

    CandidateSampler sampler(options.sampling, llama_vocab_n_tokens(vocab));
    Utf8Assembler utf8;
    StopStringFilter stops(prompt.stops);
    ReasoningSplitter splitter(prompt.startTag, prompt.endTags, prompt.startInReasoning);
    auto emit = [&](const std::string &text) {
        if (text.empty())
            return;
        const auto parts = splitter.push(text);
        result.content += parts.content;
        result.reasoning += parts.reasoning;
        if (callbacks.onDelta && (!parts.content.empty() || !parts.reasoning.empty()))
            callbacks.onDelta(parts.content, parts.reasoning);
    };

    const auto tGen = Clock::now();
    bool first = true;
    for (;;) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            st.stopReason = StopReason::Cancelled;
            break;
        }
        if (options.maxTokens >= 0 && st.generatedTokens >= options.maxTokens) {
            st.stopReason = StopReason::MaxTokens;
            break;
        }
        if (static_cast<int>(m_cached.size()) >= nCtx) {
            st.stopReason = StopReason::ContextFull;
            break;
        }
        llama_token tok = sampler.sample(m_ctx.get());
        if (first) {
            st.timeToFirstTokenMs = msSince(t0);
            first = false;
        }
        if (llama_vocab_is_eog(vocab, tok)) {
            st.stopReason = StopReason::EndOfGeneration;
            break;
        }
        ++st.generatedTokens;
        const bool control = llama_vocab_is_control(vocab, tok);
        const std::string visible = piece(tok, prompt.visibleSpecial.count(tok) > 0);
        const std::string raw = control ? piece(tok, true) : visible;

        emit(stops.push(utf8.push(visible)));
        if (stops.stopped()) {
            st.stopReason = StopReason::StopString;
            break;
        }
        const int rc = llama_decode(m_ctx.get(), llama_batch_get_one(&tok, 1));
        if (rc == 2) {
            st.stopReason = StopReason::Cancelled;
            break;
        }
        if (rc != 0) {
            st.stopReason = StopReason::ContextFull;
            break;
        }
        m_cached.push_back(tok);
        m_cachedText += raw;
        if (callbacks.onToken)
            callbacks.onToken(st.generatedTokens, static_cast<int>(m_cached.size()));
    }
    emit(stops.push(utf8.flush()));
    emit(stops.flush());
    const auto tail = splitter.flush();
    result.content += tail.content;
    result.reasoning += tail.reasoning;
    if (callbacks.onDelta && (!tail.content.empty() || !tail.reasoning.empty()))
        callbacks.onDelta(tail.content, tail.reasoning);

    st.generationMs = msSince(tGen);
    st.generationTokensPerSecond = st.generationMs > 0 ? st.generatedTokens * 1000.0 / st.generationMs : 0;
    st.contextUsed = static_cast<int>(m_cached.size());
    return result;
}

} // namespace shoehorn
