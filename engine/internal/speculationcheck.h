#pragma once

// Engine-internal: whether a loaded model can speculate as the settings ask, before the server
// loop tries (a draft file llama.cpp cannot load would fail the whole context, not just the
// speculation).

#include "model.h"
#include "settings.h"

#include <string>

namespace shoehorn::internal {

// The sentence that says why `model` cannot speculate as `s` asks; empty when it can as far as
// the files tell (llama.cpp's own vocabulary check runs when the loop starts).
std::string speculationProblem(const Model &model, const SpeculationSettings &s);

} // namespace shoehorn::internal
