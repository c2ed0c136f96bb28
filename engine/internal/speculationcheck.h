#pragma once

// Engine-internal: whether a loaded model can speculate as the settings ask, before the server
// loop tries (a draft file llama.cpp cannot load would fail the whole context, not just the
// speculation).

#include "chatsession.h"
#include "model.h"
#include "settings.h"

#include <string>

namespace shoehorn::internal {

// Why `model` cannot speculate as `s` asks (Why::None when it can as far as the files tell:
// llama.cpp's own vocabulary check runs when the loop starts).
SpeculationOff speculationProblem(const Model &model, const SpeculationSettings &s);

} // namespace shoehorn::internal
