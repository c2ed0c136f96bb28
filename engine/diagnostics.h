#pragma once

namespace shoehorn {

// llama.cpp objects this process holds right now: contexts of server loops (one per loaded
// model: the chat's and the API's slots share it) and loaded vision projectors. For tests and
// diagnostics: turning the local API on or off must change neither.
struct EngineObjects {
    int serverContexts = 0;
    int projectors = 0;
};
EngineObjects liveEngineObjects();

} // namespace shoehorn
