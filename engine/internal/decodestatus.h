#pragma once

#include "error.h"
#include "logcapture.h"

#include <cstdint>

namespace shoehorn {

// What one llama_decode result means. llama.h: 0 success, 1 no KV cache slot for the batch
// (the context is full), 2 aborted, -1 invalid input batch, < -1 fatal error. Anything else
// is undocumented and treated as fatal.
enum class DecodeStatus { Ok, NoSlot, Aborted, Failed };

DecodeStatus decodeStatus(int32_t rc);

// The Error for a decode that did not succeed: "llama_decode returned N (what llama.h says N
// means)" plus the reason llama.cpp logged, so the detail is never empty. OutOfMemory when the
// log reports a failed allocation (the user can act on that), DecodeFailed otherwise.
Error decodeError(int32_t rc, const LogCapture &capture);

} // namespace shoehorn
