#include "decodeseam.h"

#include <mutex>

// The link wraps llama_decode (tests/CMakeLists.txt: -Wl,--wrap=llama_decode): every call to it
// from this program's own objects, the statically linked server loop and engine included, comes
// here; __real_llama_decode is llama.cpp's. Calls inside libllama, libmtmd or llama-common (in a
// shared build) are not wrapped: only what the loop itself decodes is seen.
extern "C" int32_t __real_llama_decode(llama_context *ctx, llama_batch batch);

namespace {

std::mutex g_mutex;
llama_context *g_ctx = nullptr;
decodeseam::Hook g_hook;

} // namespace

namespace decodeseam {

void set(llama_context *ctx, Hook hook)
{
    std::lock_guard lock(g_mutex);
    g_ctx = hook ? ctx : nullptr;
    g_hook = ctx ? std::move(hook) : Hook();
}

int32_t real(llama_context *ctx, llama_batch batch)
{
    return __real_llama_decode(ctx, batch);
}

} // namespace decodeseam

extern "C" int32_t __wrap_llama_decode(llama_context *ctx, llama_batch batch)
{
    decodeseam::Hook hook;
    {
        std::lock_guard lock(g_mutex);
        if (ctx == g_ctx)
            hook = g_hook; // called outside the lock: a hook may decode itself (real())
    }
    if (hook)
        if (const auto rc = hook(batch.n_tokens))
            return *rc;
    return decodeseam::real(ctx, batch);
}
