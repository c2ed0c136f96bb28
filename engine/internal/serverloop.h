#pragma once

// Engine-internal: llama.cpp's server loop on a loaded model, shared by the desktop chat
// (ChatSession) and the local API's HTTP side (ApiServer).

#include "error.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "serverargs.h"
#include "settings.h"

#include <server-context.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

struct mtmd_context;

namespace shoehorn {
class Model;
}

namespace shoehorn::internal {

// The loop's slots. The app: the desktop chat's (slot 0, reserved) and `api` more in one unified
// KV cache. shoehorn-cli serve: llama-server's own layout, `api` slots and no desktop chat, the
// cache unified (-kvu, or -np auto) or split into one part per slot (-np N).
struct LoopSlots {
    int api = 0;
    bool desktop = true;
    bool kvUnified = true;
    int count() const { return std::max(1, (desktop ? 1 : 0) + std::max(0, api)); }
};

struct LoopSettings {
    ContextSettings context; // contextSize: the KV cache, shared by every slot or split between them
    LoopSlots slots;
    bool contextShift = false;
    std::string alias;       // the model's name in /v1/models; empty: the file's name
    // llama-server's command line (shoehorn-cli serve): every flag the loop has no setting of its
    // own for (sampling, templates, reasoning, timeouts...) comes from it. None: its defaults.
    std::optional<ServerArgs> server;
    // Set: the template the loop uses where the file's own cannot be read (and no --chat-template
    // was given); llama.cpp's server would refuse to start.
    std::string chatTemplate;
};

// The llama_context_params the loop's context gets (the planner's dry run of it).
llama_context_params loopContextParams(const ContextSettings &context, const LoopSlots &slots);
// Speculation's second context (a draft model's, or `mtp`: on the model's MTP layers), as the
// loop makes it beside a target context of targetCells; ctx_other is left to the caller.
llama_context_params loopDraftContextParams(const ContextSettings &context, const LoopSlots &slots, uint32_t targetCells,
                                           bool mtp);

// One llama_context whose KV cache is one pool for every slot (llama.cpp's unified cache), one
// thread that runs every decode of the chat and the API together (llama.cpp's server loop, so
// active slots decode in one batch), persistent CPU thread pools. Slot 0 is the desktop
// chat's: API requests never take it (cmake/LlamaServer.cmake). The model and the projector
// are the caller's and must outlive this.
class ServerLoop
{
public:
    static constexpr int kDesktopSlot = 0;

    // Creates the context on the calling thread and starts the loop thread. OutOfMemory when
    // llama.cpp logged a failed allocation.
    static Result<std::unique_ptr<ServerLoop>> start(const Model &model, const LoopSettings &settings,
                                                     mtmd_context *projector);
    ~ServerLoop(); // ends the loop, waits for it, frees the context
    ServerLoop(const ServerLoop &) = delete;
    ServerLoop &operator=(const ServerLoop &) = delete;

    server_context &server() { return m_server; }
    // The parameters the server was created with (the HTTP side copies them).
    const common_params &params() const { return m_params; }
    // Taken once, before the loop started: every chat turn reads it (get_meta() copies the chat
    // templates each time).
    const server_context_meta &meta() const { return *m_meta; }
    llama_context *context() const;
    // Speculation's second context (null: none) and its draft model (null: none, or MTP).
    llama_context *draftContext() const;
    llama_model *draftModel() const;
    const LoopSettings &settings() const { return m_settings; }
    uint32_t contextSize() const;
    // What one slot may fill: llama.cpp's server caps each slot at the model's trained context
    // (n_ctx_slot()), whatever the KV cache holds.
    uint32_t slotContextSize() const { return uint32_t(std::max(0, m_meta->slot_n_ctx)); }
    mtmd_context *projector() const { return m_projector; }

    // The desktop chat's Stop: read by the context's abort callback, which stops a decode only
    // while its batch holds the desktop's slot alone (null: none).
    void setDesktopCancel(const std::atomic<bool> *cancel) { m_cancel.store(cancel); }
    // True while the loop decodes a batch of the desktop's slot alone, or encodes its pictures:
    // where its Stop may end the work (the projector's encoder reads it too).
    const std::atomic<bool> &desktopWorkOnly() const;
    // The tokens slot `id` holds in the KV cache (asks the loop: answered even mid-decode).
    int slotTokens(int id);
    // Whether the slots run speculative decoding (llama.cpp turns it off when the draft does not
    // suit the model: a vocabulary of another family, a context that cannot roll back).
    bool speculating();
    // The last error llama.cpp logged while the loop was created (why speculation is off).
    const std::string &startError() const { return m_startError; }

    // What llama.cpp logged on the loop thread lately (a failed decode's reason).
    std::string loopErrors() const;
    std::string loopLog() const;
    void clearLoopLog();

private:
    ServerLoop() = default;
    static bool abortCallback(void *data);

    LoopSettings m_settings;
    common_params m_params;
    mtmd_context *m_projector = nullptr;
    std::unique_ptr<CpuThreadPools> m_pools; // before m_server: outlives its context
    server_context m_server;
    std::unique_ptr<server_context_meta> m_meta;
    std::thread m_loop;
    std::atomic<LogCapture *> m_log{nullptr}; // lives on the loop thread's stack
    std::atomic<bool> m_ended{false};
    bool m_counted = false; // in liveEngineObjects()
    std::string m_startError;
    std::atomic<const std::atomic<bool> *> m_cancel{nullptr};
};

} // namespace shoehorn::internal
