#pragma once

// A test seam over llama_decode that needs no hook in llama.cpp or the engine: a test program
// that links decodeseam.cpp with -Wl,--wrap=llama_decode (tests/CMakeLists.txt) sends every call
// its own objects make (the statically linked server loop's included) through the seam, in a
// shared or a static build alike. It runs the test's hook for the one context the test names and
// llama.cpp's llama_decode for everything else. Lets tests prove what every documented return
// code turns into, which a real model cannot be made to return on demand.
#include <llama.h>

#include <cstdint>
#include <functional>
#include <optional>

namespace decodeseam {

// Called before each llama_decode on the context given to set() with the batch's token count.
// A value is taken as llama_decode's result and the real call is skipped; std::nullopt lets the
// real call run.
using Hook = std::function<std::optional<int32_t>(int tokens)>;

// From any thread; an empty hook (or a null context) removes it.
void set(llama_context *ctx, Hook hook);

// A hook for the life of the object (a failed check that returns early removes it too: a later
// context at the same address must not inherit it).
class Scoped
{
public:
    Scoped(llama_context *ctx, Hook hook) { set(ctx, std::move(hook)); }
    ~Scoped() { set(nullptr, {}); }
    Scoped(const Scoped &) = delete;
    Scoped &operator=(const Scoped &) = delete;
};

// llama.cpp's own llama_decode, for a hook that makes a real call of its own.
int32_t real(llama_context *ctx, llama_batch batch);

} // namespace decodeseam
