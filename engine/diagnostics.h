#pragma once

namespace shoehorn {

// llama.cpp objects this process holds right now: contexts of server loops (one per loaded
// model: the chat's and the API's slots share it), loaded vision projectors, loaded weights
// (Model) and benchmark contexts (auto-tune's trials). For tests and diagnostics: turning the
// local API on or off must change none; a tune holds one model and no loop while it measures.
struct EngineObjects {
    int serverContexts = 0;
    int projectors = 0;
    int models = 0;
    int benchmarkContexts = 0;
};
EngineObjects liveEngineObjects();

} // namespace shoehorn
