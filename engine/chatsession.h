#pragma once

#include "error.h"
#include "filecheck.h"
#include "model.h"
#include "projector.h"
#include "serverargs.h"
#include "settings.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shoehorn {

struct ChatMessage {
    std::string role;      // "system", "user", "assistant"
    std::string content;
    std::string reasoning; // assistant only
    std::vector<ImageData> images = {}; // user only; placed before the text (needs a projector)
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
    int draftTokens = 0;        // speculative decoding: tokens drafted this answer
    int draftAccepted = 0;      // ...and accepted by the model (the rest were decoded and thrown away)
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
    // Before each image of the prompt is encoded (the long part of reading it on a CPU):
    // the image's number (1-based) among the `count` this turn reads.
    std::function<void(int number, int count)> onImage;
    // After each generated token: how many so far and the tokens in the KV cache.
    std::function<void(int generated, int contextUsed)> onToken;
};

// Why speculative decoding is off although the settings asked for it.
struct SpeculationOff {
    // DraftFailedCheck: the helper's file check refused the draft model (set by the caller that
    // ran it: the app's worker).
    enum class Why { None, NoMtpLayer, MtpNotLoaded, DraftUnreadable, DraftVocabulary, Refused, DraftFailedCheck };
    Why why = Why::None;
    std::string detail;   // the draft file, or llama.cpp's words
    std::string sentence; // all of it in English, for the CLI and logs
    std::string reason = {}; // DraftFailedCheck: the check's verdict
};

class ApiServer;

// The local API's part of a session's server loop, fixed when the session starts.
struct ApiSlotSettings {
    int count = 0;             // API requests decoded at once, beside the desktop chat (--parallel)
    // False: llama-server's own layout (shoehorn-cli serve): `count` slots and no desktop chat
    // (generate() is not for it), the KV cache unified or one part per slot as llama-server's -kvu
    // and -np say (`server`; without it, unified).
    bool desktopSlot = true;
    bool contextShift = false; // shift instead of stopping when a slot's context is full
    std::string alias;         // the model's name in /v1/models; empty: the file's name
    // llama-server's command line (shoehorn-cli serve): sampling defaults, templates, reasoning,
    // timeouts and the rest of its flags for the API's requests. None: llama-server's defaults.
    std::optional<ServerArgs> server;
};

// The loaded model's one llama.cpp context, run by llama.cpp's own server loop: one thread
// decodes for everyone, and every slot's tokens share one KV cache of settings.contextSize
// cells (llama.cpp's unified cache). Slot 0 is the desktop chat's (generate()); api.count
// more serve the local API when its HTTP side (api()) is open, batched with the chat. The
// caller passes the whole history each turn; the slot keeps what its cache holds and decodes
// only the rest.
class ChatSession
{
public:
    static Result<std::unique_ptr<ChatSession>> create(std::shared_ptr<Model> model, const ContextSettings &settings,
                                                       const ApiSlotSettings &api = {});
    ~ChatSession();
    ChatSession(const ChatSession &) = delete;
    ChatSession &operator=(const ChatSession &) = delete;

    // A failed decode is an Error (DecodeFailed, or OutOfMemory when llama.cpp logged a failed
    // allocation); a full context while answering stops with StopReason::ContextFull, an abort
    // through `cancel` with StopReason::Cancelled.
    Result<GenerationResult> generate(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                                      const StreamCallbacks &callbacks = {},
                                      const std::atomic<bool> *cancel = nullptr);

    // The prompt text the template makes for this history (with the generation prompt).
    Result<std::string> formatPrompt(const std::vector<ChatMessage> &history, const GenerationOptions &options) const;

    // Lets the session read images (the projector must belong to the same model); null: none.
    // A history with images and no projector is refused with NoProjector. The server loop is
    // started again with it (the context and its cache, not the model): an open API() is closed
    // with the old loop, and may be opened again on the new one.
    Error setProjector(std::shared_ptr<Projector> projector);
    const std::shared_ptr<Projector> &projector() const;

    // Renders every turn's chat template in a helper process (`helper render-template MODEL`)
    // under the first-open check's limits, so that a template that spins or eats memory on a
    // real message fails that turn (TemplateFailed, in the check's words) and Stop ends it at
    // once. Without this the template runs in this process, unbounded (trusted files, benches).
    void isolateTemplate(const std::string &helper, const FileCheckLimits &limits = {});

    void clearCache();
    int cachedTokens() const;
    uint32_t contextSize() const;
    int apiSlots() const;
    // The local API on this session's loop: opening it only binds the HTTP side.
    const std::shared_ptr<ApiServer> &api() const;
    const ContextSettings &settings() const;
    const std::shared_ptr<Model> &model() const;
    bool templateSupportsThinking() const;
    // Why speculative decoding is off although the settings ask for it (no MTP layer in the model,
    // a draft file that cannot be used, llama.cpp's refusal), in a sentence; empty when it runs
    // as asked or was not asked for. The session runs without it.
    const std::string &speculationNote() const;
    const SpeculationOff &speculationOff() const;
    // Why ChatML stands in for the model's own chat template (llama.cpp's Jinja engine cannot
    // read the file's: its reason); empty when the file's template is used. The chat and the API
    // render with ChatML then, rather than the loop refusing to start.
    const std::string &templateFallback() const;

private:
    friend struct internal::Access;
    struct Impl;
    ChatSession();
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
