#pragma once

// Engine-internal: why gguf_init_from_file() refused a file, in one sentence that names the
// field. ggml only logs its reasons (and a short read says nothing at all), so the metadata is
// walked again here to tell a file that was cut off from one whose header is damaged.

#include "error.h"

#include <cstdint>
#include <string>

namespace shoehorn::internal {

// The error for a GGUF that gguf could not parse; `ggmlLog` is what it logged meanwhile.
Error diagnoseGguf(const std::string &path, uint64_t fileSize, const std::string &ggmlLog);

// The first line of a ggml/llama.cpp log, without its "function_name: " prefix and newline.
std::string firstLogSentence(const std::string &log);

} // namespace shoehorn::internal
