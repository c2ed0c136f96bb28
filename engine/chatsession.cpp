#include "chatsession.h"

#include "guarded.h"

#include "candidatesampler.h"
#include "chattemplate.h"
#include "answerstream.h"
#include "decodestatus.h"
#include "kvledger.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "mediaprompt.h"
#include "templatesandbox.h"
#include "textstream.h"
#include "validate.h"

#include <common.h>
#include <mtmd-helper.h>
#include <mtmd.h>
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
    std::vector<llama_token> tokens;   // images as placeholder runs (internal::PromptImage)
    std::vector<internal::PromptImage> images;
    size_t keep = 0;
    int trimmed = 0;
};

// Each image becomes a marker line before its message's text (libmtmd replaces the markers
// with the image's chunks), as the chat window shows attachments above the text.
std::vector<ChatMessage> withImageMarkers(std::vector<ChatMessage> msgs)
{
    for (ChatMessage &m : msgs) {
        std::string markers;
        for (size_t i = 0; i < m.images.size(); ++i)
            markers += std::string(Projector::marker()) + "\n";
        m.content = markers + m.content;
    }
    return msgs;
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

struct ChatSession::Impl {
    std::shared_ptr<Model> model;
    ContextSettings settings;
    std::unique_ptr<CpuThreadPools> threads; // declared before ctx: outlives the context
    llama_context_ptr ctx;
    ChatTemplates templates;
    std::unique_ptr<internal::TemplateSandbox> sandbox; // null: render in this process
    internal::KvLedger cached;       // what the KV cache holds (images as placeholder runs)
    std::string cachedText;          // their text, special tokens included
    std::shared_ptr<Projector> projector;
    internal::ImageEmbeddings embeddings;
    std::unique_ptr<llama_batch, void (*)(llama_batch *)> batch{nullptr, [](llama_batch *b) {
                                                                     llama_batch_free(*b);
                                                                     delete b;
                                                                 }};
    std::atomic<const std::atomic<bool> *> cancel{nullptr};
    internal::DecodeHook decodeHook;

    static bool abortCallback(void *data);
    const llama_vocab *vocab() const { return internal::llamaVocab(*model); }
    int32_t decode(const llama_token *tokens, int n);
    int32_t decodeImage(const internal::PromptImage &image);
    void clearCache();
    std::vector<llama_token> tokenize(const std::string &text, bool addSpecial) const;
    std::string piece(llama_token token, bool special) const;
    Result<size_t> reusablePrefix(const ChatPrompt &prompt, const std::vector<const ImageData *> &images,
                                  Turn &turn) const;
    Result<internal::MediaTokens> tokenizePrompt(const std::string &text, const std::vector<const ImageData *> &images,
                                                 bool addSpecial) const;
    Result<ChatPrompt> render(const std::vector<ChatMessage> &msgs, const GenerationOptions &options,
                              const std::atomic<bool> *cancel);
    Result<Turn> fitPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                           const std::atomic<bool> *cancel);
    void rollBackTo(size_t &keep);
    std::optional<Error> prefill(const Turn &turn, const StreamCallbacks &callbacks, const std::atomic<bool> *cancel,
                                 const LogCapture &capture, GenerationStats &st);
    std::optional<Error> answer(const ChatPrompt &prompt, const GenerationOptions &options,
                                const StreamCallbacks &callbacks, const std::atomic<bool> *cancel,
                                const LogCapture &capture, Clock::time_point start, GenerationResult &result);
};

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<Model> model, const ContextSettings &settings)
{
    return internal::guarded(ErrorCode::ContextFailed, [&]() -> Result<std::unique_ptr<ChatSession>> {
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
        d.batch.reset(new llama_batch(llama_batch_init(static_cast<int32_t>(llama_n_ubatch(ctx)), 0, 1)));
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
    });
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
    // Explicit positions: after an image they no longer equal the token count (M-RoPE).
    llama_batch &b = *batch;
    b.n_tokens = n;
    for (int i = 0; i < n; ++i) {
        b.token[i] = tokens[i];
        b.pos[i] = cached.nextPos() + i;
        b.n_seq_id[i] = 1;
        b.seq_id[i][0] = 0;
        b.logits[i] = i == n - 1;
    }
    return llama_decode(ctx.get(), b);
}

// Encodes the image (or takes its cached embeddings) and decodes them at nextPos.
int32_t ChatSession::Impl::decodeImage(const internal::PromptImage &image)
{
    mtmd_context *mctx = internal::Access::projector(*projector);
    const size_t width = static_cast<size_t>(llama_model_n_embd_inp(internal::llamaModel(*model)));
    const std::vector<float> *embd = embeddings.get(mctx, image, width, cancel.load());
    if (!embd)
        return -100;
    llama_pos after = cached.nextPos();
    const int32_t rc = mtmd_helper_decode_image_chunk(mctx, ctx.get(), image.chunk.get(), const_cast<float *>(embd->data()),
                                                      cached.nextPos(), 0, static_cast<int32_t>(llama_n_batch(ctx.get())),
                                                      &after, nullptr, nullptr);
    if (rc != 0)
        return rc;
    std::vector<llama_token> placeholders;
    for (size_t k = 0; k < image.count; ++k)
        placeholders.push_back(internal::imagePlaceholder(image.hash, k));
    cached.addImage(placeholders, after);
    return 0;
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

void ChatSession::setProjector(std::shared_ptr<Projector> projector)
{
    if (projector == m_impl->projector)
        return;
    m_impl->clearCache(); // cached images were encoded by the old one
    m_impl->embeddings.clear();
    m_impl->projector = std::move(projector);
}

const std::shared_ptr<Projector> &ChatSession::projector() const
{
    return m_impl->projector;
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

void ChatSession::isolateTemplate(const std::string &helper, const FileCheckLimits &limits)
{
    m_impl->sandbox = std::make_unique<internal::TemplateSandbox>(helper, m_impl->model->info().path, limits.seconds,
                                                                  limits.memoryBytes);
    m_impl->sandbox->warmUp();
}

Result<ChatPrompt> ChatSession::Impl::render(const std::vector<ChatMessage> &msgs, const GenerationOptions &options,
                                             const std::atomic<bool> *stop)
{
    if (!sandbox)
        return templates.apply(msgs, options, vocab());
    auto p = sandbox->render(msgs, options, stop);
    if (p)
        p->resolveVisible(vocab());
    return p;
}

Result<std::string> ChatSession::formatPrompt(const std::vector<ChatMessage> &history,
                                              const GenerationOptions &options) const
{
    return internal::guarded(ErrorCode::TemplateFailed, [&]() -> Result<std::string> {
        auto p = m_impl->render(withImageMarkers(history), options, nullptr);
        if (!p)
            return p.error();
        return p->text;
    });
}

Result<internal::MediaTokens> ChatSession::Impl::tokenizePrompt(const std::string &text,
                                                                const std::vector<const ImageData *> &images,
                                                                bool addSpecial) const
{
    if (images.empty() || !projector)
        return internal::MediaTokens{tokenize(text, addSpecial), {}};
    return internal::tokenizeWithImages(internal::Access::projector(*projector), text, images, addSpecial);
}

static size_t countOf(const std::string &text, const std::string &what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

Result<size_t> ChatSession::Impl::reusablePrefix(const ChatPrompt &prompt, const std::vector<const ImageData *> &images,
                                                 Turn &turn) const
{
    // Fast path: the new prompt continues exactly the text in the cache (the usual next turn).
    // Tokenizing only the new suffix keeps the previous answer's own tokens, so the
    // second turn decodes just the new message. BOS belongs only at the start of a prompt.
    if (!cached.empty() && prompt.text.size() > cachedText.size() &&
        prompt.text.compare(0, cachedText.size(), cachedText) == 0) {
        const std::string rest = prompt.text.substr(cachedText.size());
        // The suffix's images are the last ones: its markers stand for them.
        const size_t newImages = projector ? std::min(countOf(rest, Projector::marker()), images.size()) : 0;
        auto more = tokenizePrompt(rest, {images.end() - static_cast<std::ptrdiff_t>(newImages), images.end()}, false);
        if (!more)
            return more.error();
        turn.tokens = cached.tokens();
        for (auto &img : more->images) {
            img.start += cached.size();
            turn.images.push_back(std::move(img));
        }
        turn.tokens.insert(turn.tokens.end(), more->tokens.begin(), more->tokens.end());
        return cached.size();
    }
    // Otherwise tokenize everything and keep the common token prefix (an edited or
    // regenerated turn keeps everything before it).
    auto all = tokenizePrompt(prompt.text, images, true);
    if (!all)
        return all.error();
    turn.tokens = std::move(all->tokens);
    turn.images = std::move(all->images);
    size_t n = 0;
    while (n < turn.tokens.size() && n < cached.size() && turn.tokens[n] == cached.tokens()[n])
        ++n;
    return cached.wholeImages(n);
}

Result<Turn> ChatSession::Impl::fitPrompt(const std::vector<ChatMessage> &history,
                                          const GenerationOptions &options, const std::atomic<bool> *stop)
{
    const int nCtx = static_cast<int>(llama_n_ctx(ctx.get()));
    // Room the answer needs; the prompt is trimmed to leave it.
    const int reserve = options.maxTokens > 0 ? std::min(options.maxTokens, nCtx / 2) : std::min(512, nCtx / 4);
    for (const ChatMessage &m : history)
        if (!m.images.empty() && !projector)
            return Error{ErrorCode::NoProjector, "a message has " + std::to_string(m.images.size()) +
                                                     " image(s), and no vision projector (mmproj) is loaded"};
    std::vector<ChatMessage> msgs = withImageMarkers(history);
    Turn turn;
    for (;;) {
        auto p = render(msgs, options, stop);
        if (!p)
            return p.error();
        turn.prompt = std::move(*p);
        std::vector<const ImageData *> images;
        for (const ChatMessage &m : msgs)
            for (const ImageData &img : m.images)
                images.push_back(&img);
        turn.images.clear();
        auto keep = reusablePrefix(turn.prompt, images, turn);
        if (!keep)
            return keep.error();
        turn.keep = *keep;
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
    if (keep < cached.size() && !llama_memory_seq_rm(mem, 0, cached.posAt(keep), -1)) {
        // Recurrent state cannot roll back: start over.
        llama_memory_clear(mem, true);
        keep = 0;
    }
    cached.truncate(keep);
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
    // The images this turn reads (those before `keep` are in the cache already).
    const auto firstNew = std::find_if(turn.images.begin(), turn.images.end(),
                                       [&](const internal::PromptImage &im) { return im.start >= turn.keep; });
    auto image = firstNew;
    for (size_t i = turn.keep; i < tokens.size();) {
        if (image != turn.images.end() && image->start == i) {
            // An image: encode it (the slow part on a CPU), then decode its embeddings.
            if (callbacks.onImage)
                callbacks.onImage(static_cast<int>(image - firstNew) + 1, static_cast<int>(turn.images.end() - firstNew));
            const int32_t rc = decodeImage(*image);
            const bool stop = cancel && cancel->load();
            if (rc != 0 || stop) {
                clearCache();
                if (stop) {
                    st.stopReason = StopReason::Cancelled;
                    st.promptMs = msSince(t);
                    return std::nullopt;
                }
                return Error{rc == -100 ? ErrorCode::ProjectorFailed : ErrorCode::DecodeFailed,
                             capture.lastError().empty() ? "the image could not be encoded" : capture.lastError()};
            }
            i += image->count;
            ++image;
            if (callbacks.onPrefill)
                callbacks.onPrefill(static_cast<int>(i - turn.keep), total);
            continue;
        }
        const size_t end = image != turn.images.end() ? image->start : tokens.size();
        const int n = std::min<int>(batch, static_cast<int>(end - i));
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
        cached.addText(tokens.data() + i, n);
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
    internal::AnswerStream stream(prompt, result, callbacks);
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
        cached.addText(&tok, 1);
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
    return internal::guarded(ErrorCode::DecodeFailed, [&]() -> Result<GenerationResult> {
        Impl &d = *m_impl;
        const auto t0 = Clock::now();
        LogCapture capture;
        auto turn = d.fitPrompt(history, options, cancel);
        if (!turn && turn.error().code == ErrorCode::Cancelled) {
            GenerationResult stopped; // Stop while the template rendered: nothing was written
            stopped.stats.stopReason = StopReason::Cancelled;
            stopped.stats.contextSize = static_cast<int>(contextSize());
            return stopped;
        }
        if (!turn)
            return turn.error();
        d.rollBackTo(turn->keep);

        // The abort callback reads the flag while llama_decode runs; never past this call.
        d.cancel.store(cancel);
        if (d.projector)
            internal::Access::setProjectorCancel(*d.projector, cancel);
        struct CancelReset {
            Impl &d;
            ~CancelReset()
            {
                d.cancel.store(nullptr);
                if (d.projector)
                    internal::Access::setProjectorCancel(*d.projector, nullptr);
            }
        } cancelReset{d};

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
    });
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
