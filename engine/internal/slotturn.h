#pragma once

// Engine-internal: one answer of the desktop chat, as a task on its slot of the server loop.

#include "chatsession.h"
#include "chattemplate.h"
#include "serverloop.h"

#include <server-common.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace shoehorn::internal {

// A turn's prompt after trimming, ready to post.
struct SlotPrompt {
    ChatPrompt prompt;
    server_tokens tokens;             // text tokens and image chunks
    std::vector<size_t> imageStarts;  // where each image's chunk begins in `tokens`
    int trimmed = 0;                  // oldest messages dropped to fit
};

// What the slot holds after a turn, as tokens and as the text they spell (special tokens as
// text): a next prompt that continues this text keeps these very tokens.
struct SlotCache {
    server_tokens tokens;
    std::string text;
    size_t images = 0; // pictures among the tokens
    bool valid = false;
    void clear()
    {
        tokens.clear();
        text.clear();
        images = 0;
        valid = false;
    }
};

// Posts the prompt to the desktop slot and streams the answer through `callbacks` until it
// ends, `cancel` is set (the task is cancelled; what was written is kept) or the server
// reports an error (DecodeFailed or OutOfMemory with llama.cpp's reason, PromptTooLong).
// Updates `cache` with what the slot holds after the answer.
Result<GenerationResult> runTurn(ServerLoop &loop, const llama_vocab *vocab, SlotPrompt &&turn,
                                 const GenerationOptions &options, const StreamCallbacks &callbacks,
                                 const std::atomic<bool> *cancel, std::chrono::steady_clock::time_point start,
                                 SlotCache &cache);

} // namespace shoehorn::internal
