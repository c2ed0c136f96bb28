#pragma once

// Engine-internal: the llama.cpp handles behind Model and ChatSession. Only engine code and
// the engine's own tests include this (engine/internal is not on the app's include path).

#include "chatsession.h"
#include "model.h"

#include <llama.h>

namespace shoehorn::internal {

// The one friend of Model and ChatSession: keeps their llama.cpp state out of the public headers.
struct Access {
    static llama_model *model(const Model &m);
    static llama_context *context(const ChatSession &s);
};

inline llama_model *llamaModel(const Model &m) { return Access::model(m); }
inline const llama_vocab *llamaVocab(const Model &m) { return llama_model_get_vocab(Access::model(m)); }
inline llama_context *llamaContext(const ChatSession &s) { return Access::context(s); }

} // namespace shoehorn::internal
