#pragma once

// Engine-internal: the llama.cpp handles behind Model and ChatSession. Only engine code and
// the engine's own tests include this (engine/internal is not on the app's include path).

#include "chatsession.h"
#include "model.h"
#include "projector.h"

#include <llama.h>

#include <atomic>
#include <memory>

struct mtmd_context;
struct common_params;

namespace shoehorn {
class ServerArgs;
}
namespace shoehorn::internal {
class ServerLoop;

// The one friend of Model and ChatSession: keeps their llama.cpp state out of the public headers.
struct Access {
    static llama_model *model(const Model &m);
    static llama_context *context(const ChatSession &s);
    static ServerLoop &loop(const ChatSession &s);
    static mtmd_context *projector(const Projector &p);
    // The flag that stops an image's encoding (null: none), read inside the encoder's graph.
    // `cancel` stops an encode only while `gate` is true (null: always).
    static void setProjectorCancel(const Projector &p, const std::atomic<bool> *cancel,
                                   const std::atomic<bool> *gate = nullptr);
    // The HTTP side of a session's server loop: made with it, moved to a new loop when the loop
    // starts again (a new projector), and detached before the loop goes.
    static std::shared_ptr<ApiServer> makeApiServer(ServerLoop &loop);
    static void attachApiServer(ApiServer &api, ServerLoop &loop);
    static void detachApiServer(ApiServer &api);
    // The server loop a session's chat and API run on (the preset router serves its routes).
    static ServerLoop &loop(ChatSession &s);
    // llama-server's parameters as its own parser read them.
    static const common_params &params(const ServerArgs &args);
};

inline llama_model *llamaModel(const Model &m) { return Access::model(m); }
inline const llama_vocab *llamaVocab(const Model &m) { return llama_model_get_vocab(Access::model(m)); }
inline llama_context *llamaContext(const ChatSession &s) { return Access::context(s); }

} // namespace shoehorn::internal
