#include "chatsession.h"

#include "guarded.h"

#include "apiserver.h"
#include "chattemplate.h"
#include "llamahandles.h"
#include "mediaprompt.h"
#include "slotturn.h"
#include "speculationcheck.h"
#include "templatesandbox.h"
#include "validate.h"

#include <common.h>
#include <mtmd-helper.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace shoehorn {

namespace {

using Clock = std::chrono::steady_clock;

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
    internal::LoopSettings loopSettings;
    ChatTemplates templates;
    std::unique_ptr<internal::TemplateSandbox> sandbox; // null: render in this process
    std::shared_ptr<Projector> projector;
    std::unique_ptr<internal::ServerLoop> loop; // after the model and projector: goes before them
    std::shared_ptr<ApiServer> api;             // the HTTP side, closed before the loop goes
    internal::SlotCache cache;                  // what the desktop slot holds
    // A Stop outlives its answer: the answer returns when the reader sees the flag, while the
    // loop may still be inside the chat's own work (a picture's encoding, a batch's decode) until
    // its next stopping point. The loop and the projector read this then (gated to the chat's
    // own work), until the next answer starts.
    std::atomic<bool> stopLatch{false};
    void setCancel(const std::atomic<bool> *cancel);

    const llama_vocab *vocab() const { return internal::llamaVocab(*model); }
    Result<ChatPrompt> render(const std::vector<ChatMessage> &msgs, const GenerationOptions &options,
                              const std::atomic<bool> *cancel);
    Error tokenize(internal::SlotPrompt &turn, const std::vector<const ImageData *> &images) const;
    Result<internal::SlotPrompt> fitPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                                           const std::atomic<bool> *cancel);
    Error restartLoop();
    Result<std::unique_ptr<internal::ServerLoop>> startLoop();

    SpeculationOff speculationOff; // why speculative decoding is off although it was asked for
    std::string templateFallback;  // why ChatML stands in for the file's template
};

// The loop with speculation as asked; where the model cannot speculate so (no MTP layer, a draft
// file that is no GGUF or of another vocabulary, llama.cpp's own refusal), the loop without it
// and a note that says why: the chat goes on.
Result<std::unique_ptr<internal::ServerLoop>> ChatSession::Impl::startLoop()
{
    internal::LoopSettings run = loopSettings; // speculation as asked stays there for the next start
    SpeculationSettings &asked = run.context.speculation;
    speculationOff = {};
    if (asked.on())
        speculationOff = internal::speculationProblem(*model, asked);
    if (speculationOff.why != SpeculationOff::Why::None)
        asked = SpeculationSettings();
    mtmd_context *mtmd = projector ? internal::Access::projector(*projector) : nullptr;
    auto loop = internal::ServerLoop::start(*model, run, mtmd);
    const auto refused = [&](const std::string &why) {
        speculationOff = {SpeculationOff::Why::Refused, why,
                          "speculative decoding (" + asked.running() + ") is off: " + why};
    };
    if (!loop && asked.on()) {
        refused(loop.error().detail);
        asked = SpeculationSettings();
        loop = internal::ServerLoop::start(*model, run, mtmd);
    } else if (loop && asked.on() && !(*loop)->speculating()) {
        const std::string why = (*loop)->startError();
        refused(why.empty() ? "llama.cpp did not start it for this model" : why);
    }
    return loop;
}

Result<std::unique_ptr<ChatSession>> ChatSession::create(std::shared_ptr<Model> model, const ContextSettings &settings,
                                                         const ApiSlotSettings &api)
{
    return internal::guarded(ErrorCode::ContextFailed, [&]() -> Result<std::unique_ptr<ChatSession>> {
        if (!model)
            return Error{ErrorCode::NoModel, "no model loaded"};
        if (Error e = validate(settings))
            return e;
        if (Error e = validate(model->info(), settings))
            return e;
        if (Error e = validateMemory(model->info(), settings, targetFromHardware(probeHardware())))
            return e;
        auto session = std::unique_ptr<ChatSession>(new ChatSession());
        Impl &d = *session->m_impl;
        auto templates = ChatTemplates::create(internal::llamaModel(*model));
        if (!templates)
            return templates.error();
        d.templates = std::move(*templates);
        // serve's --chat-template / --chat-template-file: the loop renders with the user's own.
        const bool userTemplate = api.server && !internal::Access::params(*api.server).chat_template.empty();
        if (const std::string &why = d.templates.fallbackReason(); !why.empty() && !userTemplate) {
            // The chat renders with ChatML then: the loop (and the API) the same, not a refusal.
            d.loopSettings.chatTemplate = ChatTemplates::fallbackTemplate();
            // common_chat_templates_init logs the parser's words and throws a bare std::exception.
            d.templateFallback = why == "std::exception" ? std::string("llama.cpp's Jinja engine refused it") : why;
        }
        d.model = std::move(model);
        d.loopSettings.context = settings;
        d.loopSettings.slots.api = std::max(0, api.count);
        d.loopSettings.slots.desktop = api.desktopSlot;
        d.loopSettings.slots.kvUnified = api.desktopSlot || !api.server || api.server->kvUnified();
        d.loopSettings.contextShift = api.contextShift;
        d.loopSettings.alias = api.alias;
        d.loopSettings.server = api.server;
        auto loop = d.startLoop();
        if (!loop)
            return loop.error();
        d.loop = std::move(*loop);
        d.settings = settings;
        d.settings.contextSize = d.loop->contextSize();
        d.api = internal::Access::makeApiServer(*d.loop);
        return session;
    });
}

ChatSession::ChatSession() : m_impl(std::make_unique<Impl>()) {}

const std::string &ChatSession::speculationNote() const
{
    return m_impl->speculationOff.sentence;
}

const std::string &ChatSession::templateFallback() const
{
    return m_impl->templateFallback;
}

const SpeculationOff &ChatSession::speculationOff() const
{
    return m_impl->speculationOff;
}

ChatSession::~ChatSession()
{
    // The HTTP side may outlive this (a status poll holds it): it lets go of the loop first.
    if (m_impl->api)
        internal::Access::detachApiServer(*m_impl->api);
    // The loop's thread and the projector (which may outlive this) forget the latch kept here.
    m_impl->setCancel(nullptr);
}

// Where the loop's abort callback and the projector's encoder read the chat's Stop (null: none).
void ChatSession::Impl::setCancel(const std::atomic<bool> *cancel)
{
    if (loop)
        loop->setDesktopCancel(cancel);
    if (projector)
        internal::Access::setProjectorCancel(*projector, cancel, cancel && loop ? &loop->desktopWorkOnly() : nullptr);
}

int ChatSession::cachedTokens() const
{
    return m_impl->loop->slotTokens(internal::ServerLoop::kDesktopSlot);
}

uint32_t ChatSession::contextSize() const
{
    return m_impl->loop->contextSize();
}

int ChatSession::apiSlots() const
{
    return m_impl->loopSettings.slots.api;
}

const ContextSettings &ChatSession::settings() const
{
    return m_impl->settings;
}

const std::shared_ptr<Model> &ChatSession::model() const
{
    return m_impl->model;
}

const std::shared_ptr<ApiServer> &ChatSession::api() const
{
    return m_impl->api;
}

bool ChatSession::templateSupportsThinking() const
{
    return m_impl->templates.supportsThinking();
}

void ChatSession::isolateTemplate(const std::string &helper, const FileCheckLimits &limits)
{
    m_impl->sandbox = std::make_unique<internal::TemplateSandbox>(helper, m_impl->model->info().path, limits.seconds,
                                                                  limits.memoryBytes);
    m_impl->sandbox->warmUp();
}

// The server loop holds the projector from its start: a new one means a new loop (the context
// and its KV cache again, not the model). An open HTTP side is closed with the old loop; the
// caller opens it again if it still wants it (a snapshot taken here would reopen an API the
// user stopped meanwhile, and refuse one started meanwhile).
Error ChatSession::Impl::restartLoop()
{
    internal::Access::detachApiServer(*api);
    setCancel(nullptr); // the gate is the old loop's
    loop.reset();
    cache.clear();
    auto started = startLoop();
    if (!started)
        return started.error();
    loop = std::move(*started);
    internal::Access::attachApiServer(*api, *loop);
    return {};
}

Error ChatSession::setProjector(std::shared_ptr<Projector> projector)
{
    if (projector == m_impl->projector)
        return {};
    return internal::guarded(ErrorCode::ContextFailed, [&]() -> Error {
        m_impl->setCancel(nullptr);
        m_impl->projector = std::move(projector);
        return m_impl->restartLoop();
    });
}

const std::shared_ptr<Projector> &ChatSession::projector() const
{
    return m_impl->projector;
}

void ChatSession::clearCache()
{
    Impl &d = *m_impl;
    d.cache.clear();
    server_response_reader rd = d.loop->server().get_response_reader();
    server_task task(SERVER_TASK_TYPE_SLOT_ERASE);
    task.id = rd.get_new_id();
    task.slot_action.id_slot = internal::ServerLoop::kDesktopSlot;
    rd.post_task(std::move(task));
    rd.next([] { return false; }); // the loop answers between two decodes
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

static size_t countOf(const std::string &text, const std::string &what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

// The prompt's tokens. A prompt that continues exactly the text the slot holds keeps the slot's
// own tokens (the previous answer as it was sampled, not as its text tokenizes again, and its
// pictures), so the next turn decodes only what is new.
Error ChatSession::Impl::tokenize(internal::SlotPrompt &turn, const std::vector<const ImageData *> &images) const
{
    const std::string &text = turn.prompt.text;
    mtmd_context *mctx = loop->projector();
    const auto piece = [&](const std::string &part, std::vector<const ImageData *> pictures,
                           bool start) -> Result<server_tokens> {
        if (pictures.empty() || !mctx)
            return server_tokens(common_tokenize(vocab(), part, start, true), mctx != nullptr);
        return internal::tokenizeWithImages(mctx, part, pictures, start);
    };
    if (cache.valid && text.size() > cache.text.size() && text.compare(0, cache.text.size(), cache.text) == 0 &&
        cache.images <= images.size()) {
        const std::string rest = text.substr(cache.text.size());
        // The rest's markers stand for the last pictures.
        const size_t fresh = std::min(countOf(rest, Projector::marker()), images.size() - cache.images);
        auto more = piece(rest, {images.end() - static_cast<std::ptrdiff_t>(fresh), images.end()}, false);
        if (!more)
            return more.error();
        turn.tokens = cache.tokens.clone();
        internal::append(turn.tokens, *more);
    } else {
        auto all = piece(text, images, true);
        if (!all)
            return all.error();
        turn.tokens = std::move(*all);
    }
    turn.imageStarts = internal::imageStarts(turn.tokens);
    if (mctx && turn.imageStarts.size() != images.size())
        return Error{ErrorCode::TokenizeFailed, std::to_string(images.size()) + " image(s), and " +
                                                    std::to_string(turn.imageStarts.size()) + " places for them"};
    return {};
}

Result<internal::SlotPrompt> ChatSession::Impl::fitPrompt(const std::vector<ChatMessage> &history,
                                                          const GenerationOptions &options, const std::atomic<bool> *stop)
{
    const int nCtx = static_cast<int>(loop->slotContextSize());
    // Room the answer needs; the prompt is trimmed to leave it.
    const int reserve = options.maxTokens > 0 ? std::min(options.maxTokens, nCtx / 2) : std::min(512, nCtx / 4);
    for (const ChatMessage &m : history)
        if (!m.images.empty() && !projector)
            return Error{ErrorCode::NoProjector, "a message has " + std::to_string(m.images.size()) +
                                                     " image(s), and no vision projector (mmproj) is loaded"};
    std::vector<ChatMessage> msgs = withImageMarkers(history);
    internal::SlotPrompt turn;
    for (;;) {
        auto p = render(msgs, options, stop);
        if (!p)
            return p.error();
        turn.prompt = std::move(*p);
        std::vector<const ImageData *> images;
        for (const ChatMessage &m : msgs)
            for (const ImageData &img : m.images)
                images.push_back(&img);
        if (Error e = tokenize(turn, images))
            return e;
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
    return turn;
}

Result<GenerationResult> ChatSession::generate(const std::vector<ChatMessage> &history,
                                               const GenerationOptions &options, const StreamCallbacks &callbacks,
                                               const std::atomic<bool> *cancel)
{
    return internal::guarded(ErrorCode::DecodeFailed, [&]() -> Result<GenerationResult> {
        Impl &d = *m_impl;
        const auto t0 = Clock::now();
        auto turn = d.fitPrompt(history, options, cancel);
        if (!turn && turn.error().code == ErrorCode::Cancelled) {
            GenerationResult stopped; // Stop while the template rendered: nothing was written
            stopped.stats.stopReason = StopReason::Cancelled;
            stopped.stats.contextSize = static_cast<int>(d.loop->slotContextSize());
            return stopped;
        }
        if (!turn)
            return turn.error();
        // The abort callback and the image encoder read the flag while the loop decodes this turn,
        // and the latch after it when it was stopped.
        // A stopped answer's work may still be in the loop until its next stopping point; the
        // latch stays up until it has ended (the new turn would wait for the loop anyway).
        for (int waited = 0; d.stopLatch.load() && d.loop->desktopWorkOnly().load() && waited < 10000; ++waited)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        d.stopLatch.store(false);
        d.setCancel(cancel);
        struct CancelReset {
            Impl &d;
            const std::atomic<bool> *cancel;
            ~CancelReset()
            {
                const bool stopped = cancel && cancel->load();
                d.stopLatch.store(stopped);
                d.setCancel(stopped ? &d.stopLatch : nullptr);
            }
        } cancelReset{d, cancel};
        return internal::runTurn(*d.loop, d.vocab(), std::move(*turn), options, callbacks, cancel, t0, d.cache);
    });
}

internal::ServerLoop &internal::Access::loop(ChatSession &s)
{
    return *s.m_impl->loop;
}

internal::ServerLoop &internal::Access::loop(const ChatSession &s)
{
    return *s.m_impl->loop;
}

llama_context *internal::Access::context(const ChatSession &s)
{
    return s.m_impl->loop->context();
}


} // namespace shoehorn
