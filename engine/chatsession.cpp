#include "chatsession.h"

#include "candidatesampler.h"
#include "chattemplate.h"
#include "decodestatus.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "textstream.h"
#include "validate.h"

#include <common.h>
#include <llama-cpp.h>

#include <algorithm>
#include <chrono>
#include <optional>

namespace shoehorn {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A turn's prompt after trimming: its tokens and how many of them the KV cache already holds.
struct Turn {
    ChatPrompt prompt;
    std::vector<llama_token> tokens;
    size_t keep = 0;
    int trimmed = 0;
};

// Turns token text into content and reasoning deltas: complete UTF-8 only, stop strings held
// back until they are clear, reasoning split from the answer.
class AnswerStream
{
public:
    AnswerStream(const ChatPrompt &p, GenerationResult &result, const StreamCallbacks &callbacks)
        : m_stops(p.stops), m_splitter(p.startTag, p.endTags, p.startInReasoning), m_result(result),
          m_callbacks(callbacks)
    {
    }
    void push(const std::string &piece) { emit(m_stops.push(m_utf8.push(piece))); }
    bool stopped() const { return m_stops.stopped(); }
    void finish()
    {
        emit(m_stops.push(m_utf8.flush()));
        emit(m_stops.flush());
        deliver(m_splitter.flush());
    }

private:
    void emit(const std::string &text)
    {
        if (!text.empty())
            deliver(m_splitter.push(text));
    }
    void deliver(const ReasoningSplitter::Out &parts)
    {
        m_result.content += parts.content;
        m_result.reasoning += parts.reasoning;
        if (m_callbacks.onDelta && (!parts.content.empty() || !parts.reasoning.empty()))
            m_callbacks.onDelta(parts.content, parts.reasoning);
    }

    Utf8Assembler m_utf8;
    StopStringFilter m_stops;
    ReasoningSplitter m_splitter;
    GenerationResult &m_result;
    const StreamCallbacks &m_callbacks;
};

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

struct ChatSession::Impl {
    std::shared_ptr<Model> model;
    ContextSettings settings;
    std::unique_ptr<CpuThreadPools> threads; // declared before ctx: outlives the context
    llama_context_ptr ctx;
    ChatTemplates templates;
    std::vector<llama_token> cached; // what the KV cache holds, positions 0..n-1
    std::string cachedText;          // their text, special tokens included
    std::atomic<const std::atomic<bool> *> cancel{nullptr};
    internal::DecodeHook decodeHook;

    static bool abortCallback(void *data);
    const llama_vocab *vocab() const { return internal::llamaVocab(*model); }
    int32_t decode(const llama_token *tokens, int n);
    void clearCache();
    std::vector<llama_token> tokenize(const std::string &text, bool addSpecial) const;
    std::string piece(llama_token token, bool special) const;
    size_t reusablePrefix(const ChatPrompt &prompt, std::vector<llama_token> &tokens) const;
    Result<Turn> fitPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options) const;
    void rollBackTo(size_t &keep);
    std::optional<Error> prefill(const Turn &turn, const StreamCallbacks &callbacks, const std::atomic<bool> *cancel,
                                 const LogCapture &capture, GenerationStats &st);
    std::optional<Error> answer(const ChatPrompt &prompt, const GenerationOptions &options,
                                const StreamCallbacks &callbacks, const std::atomic<bool> *cancel,
                                const LogCapture &capture, Clock::time_point start, GenerationResult &result);
};

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<Model> model, const ContextSettings &settings)
{
    if (!model)
        return Error{ErrorCode::NoModel, "no model loaded"};
    if (Error e = validate(settings))
        return e;

    LogCapture capture;
    llama_context_params cp = contextParams(settings);

    auto session = std::unique_ptr<ChatSession>(new ChatSession());
    Impl &d = *session->m_impl;
    cp.abort_callback = &Impl::abortCallback;
    cp.abort_callback_data = &d;

    llama_context *ctx = llama_init_from_model(internal::llamaModel(*model), cp);
    if (!ctx) {
        const std::string why = capture.lastError().empty() ? "llama.cpp could not create the context"
                                                            : capture.lastError();
        return Error{looksLikeOutOfMemory(capture.all()) ? ErrorCode::OutOfMemory : ErrorCode::ContextFailed, why};
    }
    d.ctx.reset(ctx);
    d.threads = std::make_unique<CpuThreadPools>(settings);
    d.threads->attach(ctx);
    d.model = std::move(model);
    d.settings = settings;
    d.settings.contextSize = llama_n_ctx(ctx);

    auto templates = ChatTemplates::create(internal::llamaModel(*d.model));
    if (!templates)
        return templates.error();
    d.templates = std::move(*templates);
    return session;
}

ChatSession::ChatSession() : m_impl(std::make_unique<Impl>()) {}
ChatSession::~ChatSession() = default;

bool ChatSession::Impl::abortCallback(void *data)
{
    const auto *self = static_cast<Impl *>(data);
    const std::atomic<bool> *flag = self->cancel.load(std::memory_order_relaxed);
    return flag && flag->load(std::memory_order_relaxed);
}

int32_t ChatSession::Impl::decode(const llama_token *tokens, int n)
{
    if (decodeHook) {
        if (const auto rc = decodeHook(n))
            return *rc;
    }
    // llama_batch_get_one takes a mutable pointer but only reads the tokens.
    return llama_decode(ctx.get(), llama_batch_get_one(const_cast<llama_token *>(tokens), n));
}

int ChatSession::cachedTokens() const
{
    return static_cast<int>(m_impl->cached.size());
}

uint32_t ChatSession::contextSize() const
{
    return llama_n_ctx(m_impl->ctx.get());
}

const ContextSettings &ChatSession::settings() const
{
    return m_impl->settings;
}

const std::shared_ptr<Model> &ChatSession::model() const
{
    return m_impl->model;
}

bool ChatSession::templateSupportsThinking() const
{
    return m_impl->templates.supportsThinking();
}

void ChatSession::clearCache()
{
    m_impl->clearCache();
}

void ChatSession::Impl::clearCache()
{
    llama_memory_clear(llama_get_memory(ctx.get()), true);
    cached.clear();
    cachedText.clear();
}

std::vector<llama_token> ChatSession::Impl::tokenize(const std::string &text, bool addSpecial) const
{
    return common_tokenize(vocab(), text, addSpecial, true);
}

std::string ChatSession::Impl::piece(llama_token token, bool special) const
{
    return common_token_to_piece(vocab(), token, special);
}

Result<std::string> ChatSession::formatPrompt(const std::vector<ChatMessage> &history,
                                              const GenerationOptions &options) const
{
    auto p = m_impl->templates.apply(history, options, m_impl->vocab());
    if (!p)
        return p.error();
    return p->text;
}

size_t ChatSession::Impl::reusablePrefix(const ChatPrompt &prompt, std::vector<llama_token> &tokens) const
{
    // Fast path: the new prompt continues exactly the text in the cache (the usual next turn).
    // Tokenizing only the new suffix keeps the previous answer's own tokens, so the
    // second turn decodes just the new message. BOS belongs only at the start of a prompt.
    if (!cached.empty() && prompt.text.size() > cachedText.size() &&
        prompt.text.compare(0, cachedText.size(), cachedText) == 0) {
        tokens = cached;
        const auto rest = tokenize(prompt.text.substr(cachedText.size()), false);
        tokens.insert(tokens.end(), rest.begin(), rest.end());
        return cached.size();
    }
    // Otherwise tokenize everything and keep the common token prefix (an edited or
    // regenerated turn keeps everything before it).
    tokens = tokenize(prompt.text, true);
    size_t n = 0;
    while (n < tokens.size() && n < cached.size() && tokens[n] == cached[n])
        ++n;
    return n;
}

Result<Turn> ChatSession::Impl::fitPrompt(const std::vector<ChatMessage> &history,
                                          const GenerationOptions &options) const
{
    const int nCtx = static_cast<int>(llama_n_ctx(ctx.get()));
    // Room the answer needs; the prompt is trimmed to leave it.
    const int reserve = options.maxTokens > 0 ? std::min(options.maxTokens, nCtx / 2) : std::min(512, nCtx / 4);
    std::vector<ChatMessage> msgs = history;
    Turn turn;
    for (;;) {
        auto p = templates.apply(msgs, options, vocab());
        if (!p)
            return p.error();
        turn.prompt = std::move(*p);
        turn.keep = reusablePrefix(turn.prompt, turn.tokens);
        if (static_cast<int>(turn.tokens.size()) + reserve <= nCtx)
            break;
        // Drop the oldest whole message after the system prompt; never the last one.
        const size_t first = (!msgs.empty() && msgs.front().role == "system") ? 1 : 0;
        if (msgs.size() <= first + 1)
            return Error{ErrorCode::PromptTooLong, "the message needs " + std::to_string(turn.tokens.size()) +
                                                       " tokens; the context holds " + std::to_string(nCtx)};
        msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(first));
        ++turn.trimmed;
        // A dangling assistant answer at the front makes no sense without its question.
        while (msgs.size() > first + 1 && msgs[first].role == "assistant") {
            msgs.erase(msgs.begin() + static_cast<std::ptrdiff_t>(first));
            ++turn.trimmed;
        }
    }
    if (turn.tokens.empty())
        return Error{ErrorCode::TokenizeFailed, "the prompt is empty"};
    // At least one token must be decoded to get logits for the first answer token.
    turn.keep = std::min(turn.keep, turn.tokens.size() - 1);
    return turn;
}

void ChatSession::Impl::rollBackTo(size_t &keep)
{
    llama_memory_t mem = llama_get_memory(ctx.get());
    if (keep < cached.size() && !llama_memory_seq_rm(mem, 0, static_cast<llama_pos>(keep), -1)) {
        // Recurrent state cannot roll back: start over.
        llama_memory_clear(mem, true);
        keep = 0;
    }
    cached.resize(std::min(keep, cached.size()));
    cachedText.clear(); // valid again once the prompt is in
}

// Decodes the prompt after what the cache holds, one micro-batch (n_ubatch) per llama_decode:
// llama.cpp computes a batch in micro-batches anyway, and this way progress and Stop come
// after each of them, not only after a whole n_batch (a long prompt's first seconds).
std::optional<Error> ChatSession::Impl::prefill(const Turn &turn, const StreamCallbacks &callbacks,
                                                const std::atomic<bool> *cancel, const LogCapture &capture,
                                                GenerationStats &st)
{
    const auto t = Clock::now();
    const std::vector<llama_token> &tokens = turn.tokens;
    const int total = static_cast<int>(tokens.size() - turn.keep);
    const int batch = static_cast<int>(llama_n_ubatch(ctx.get()));
    if (callbacks.onPrefill)
        callbacks.onPrefill(0, total);
    for (size_t i = turn.keep; i < tokens.size();) {
        const int n = std::min<int>(batch, static_cast<int>(tokens.size() - i));
        const int32_t rc = decode(tokens.data() + i, n);
        const DecodeStatus status = decodeStatus(rc);
        const bool cancelled =
            status == DecodeStatus::Aborted || (status == DecodeStatus::Ok && cancel && cancel->load());
        // Stopped or failed mid-prompt: what the cache holds is unknown (llama.h: processed
        // micro-batches stay), so forget it.
        if (status != DecodeStatus::Ok || cancelled)
            clearCache();
        if (cancelled) {
            st.stopReason = StopReason::Cancelled;
            st.promptMs = msSince(t);
            return std::nullopt;
        }
        if (status == DecodeStatus::NoSlot) // trimming left room, yet the cache had none
            return Error{ErrorCode::PromptTooLong, decodeError(rc, capture).detail};
        if (status == DecodeStatus::Failed)
            return decodeError(rc, capture);
        cached.insert(cached.end(), tokens.begin() + static_cast<std::ptrdiff_t>(i),
                      tokens.begin() + static_cast<std::ptrdiff_t>(i + static_cast<size_t>(n)));
        i += static_cast<size_t>(n);
        if (callbacks.onPrefill)
            callbacks.onPrefill(static_cast<int>(i - turn.keep), total);
    }
    cachedText = turn.prompt.text;
    st.promptEvaluated = total;
    st.promptMs = msSince(t);
    st.promptTokensPerSecond = st.promptMs > 0 ? total * 1000.0 / st.promptMs : 0;
    return std::nullopt;
}

// Samples and decodes answer tokens until a stop condition. A full context or an abort ends
// the answer normally; any other decode failure is an Error.
std::optional<Error> ChatSession::Impl::answer(const ChatPrompt &prompt, const GenerationOptions &options,
                                               const StreamCallbacks &callbacks, const std::atomic<bool> *cancel,
                                               const LogCapture &capture, Clock::time_point start,
                                               GenerationResult &result)
{
    GenerationStats &st = result.stats;
    const llama_vocab *v = vocab();
    CandidateSampler sampler(options.sampling, llama_vocab_n_tokens(v));
    AnswerStream stream(prompt, result, callbacks);
    const auto t = Clock::now();
    for (;;) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            st.stopReason = StopReason::Cancelled;
            break;
        }
        if (options.maxTokens >= 0 && st.generatedTokens >= options.maxTokens) {
            st.stopReason = StopReason::MaxTokens;
            break;
        }
        if (static_cast<int>(cached.size()) >= st.contextSize) {
            st.stopReason = StopReason::ContextFull;
            break;
        }
        llama_token tok = sampler.sample(ctx.get());
        if (st.generatedTokens == 0)
            st.timeToFirstTokenMs = msSince(start);
        if (llama_vocab_is_eog(v, tok)) {
            st.stopReason = StopReason::EndOfGeneration;
            break;
        }
        ++st.generatedTokens;
        const std::string visible = piece(tok, prompt.visibleSpecial.count(tok) > 0);
        stream.push(visible);
        if (stream.stopped()) {
            st.stopReason = StopReason::StopString;
            break;
        }
        const int32_t rc = decode(&tok, 1);
        const DecodeStatus status = decodeStatus(rc);
        if (status == DecodeStatus::NoSlot) {
            st.stopReason = StopReason::ContextFull;
            break;
        }
        if (status == DecodeStatus::Aborted) {
            st.stopReason = StopReason::Cancelled;
            break;
        }
        if (status == DecodeStatus::Failed) {
            clearCache(); // a fatal error may leave part of the batch in the cache
            return decodeError(rc, capture);
        }
        cached.push_back(tok);
        cachedText += llama_vocab_is_control(v, tok) ? piece(tok, true) : visible;
        if (callbacks.onToken)
            callbacks.onToken(st.generatedTokens, static_cast<int>(cached.size()));
    }
    stream.finish();
    st.generationMs = msSince(t);
    st.generationTokensPerSecond = st.generationMs > 0 ? st.generatedTokens * 1000.0 / st.generationMs : 0;
    st.contextUsed = static_cast<int>(cached.size());
    return std::nullopt;
}

Result<GenerationResult> ChatSession::generate(const std::vector<ChatMessage> &history,
                                               const GenerationOptions &options, const StreamCallbacks &callbacks,
                                               const std::atomic<bool> *cancel)
{
    Impl &d = *m_impl;
    const auto t0 = Clock::now();
    LogCapture capture;
    auto turn = d.fitPrompt(history, options);
    if (!turn)
        return turn.error();
    d.rollBackTo(turn->keep);

    // The abort callback reads the flag while llama_decode runs; never past this call.
    d.cancel.store(cancel);
    struct CancelReset {
        std::atomic<const std::atomic<bool> *> &ref;
        ~CancelReset() { ref.store(nullptr); }
    } cancelReset{d.cancel};

    GenerationResult result;
    GenerationStats &st = result.stats;
    st.promptTokens = static_cast<int>(turn->tokens.size());
    st.reusedTokens = static_cast<int>(turn->keep);
    st.trimmedMessages = turn->trimmed;
    st.contextSize = static_cast<int>(contextSize());

    if (auto failed = d.prefill(*turn, callbacks, cancel, capture, st))
        return *failed;
    if (st.stopReason == StopReason::Cancelled)
        return result;
    if (auto failed = d.answer(turn->prompt, options, callbacks, cancel, capture, t0, result))
        return *failed;
    return result;
}

llama_context *internal::Access::context(const ChatSession &s)
{
    return s.m_impl->ctx.get();
}

void internal::Access::setDecodeHook(ChatSession &s, DecodeHook hook)
{
    s.m_impl->decodeHook = std::move(hook);
}

} // namespace shoehorn
