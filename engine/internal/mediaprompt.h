#pragma once

// Engine-internal: prompts with images, as the server loop takes them (text tokens and image
// chunks in one server_tokens). An image chunk carries its bitmap's id (a hash of the picture's
// bytes), so a picture that is still in the slot's cache is recognised next turn, and a
// different one is not.

#include "error.h"
#include "projector.h"

#include <server-common.h>

#include <string>
#include <vector>

struct mtmd_context;

namespace shoehorn::internal {

// Tokenizes `text`, whose image markers stand for `images` in order. ImageInvalid names the
// image libmtmd could not decode; TokenizeFailed when markers and images do not pair up.
// `addSpecial`: a prompt's start (BOS), not a continuation of one.
Result<server_tokens> tokenizeWithImages(mtmd_context *ctx, const std::string &text,
                                         const std::vector<const ImageData *> &images, bool addSpecial);

// `tail` appended to `head`, pictures included (server_tokens::push_back(server_tokens &) takes
// text only).
void append(server_tokens &head, const server_tokens &tail);

// Where each image chunk begins in `tokens`.
std::vector<size_t> imageStarts(const server_tokens &tokens);

} // namespace shoehorn::internal
