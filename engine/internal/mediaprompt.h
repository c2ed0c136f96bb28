#pragma once

// Engine-internal: prompts with images. libmtmd turns a prompt with image markers into text
// and image chunks; ChatSession keeps one token list for its KV cache bookkeeping, in which
// each image stands as a run of placeholder ids derived from the image's bytes (so an image
// that is still in the cache is recognised, and a different one is not).

#include "error.h"
#include "projector.h"

#include <llama.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

struct mtmd_context;
struct mtmd_input_chunk;

namespace shoehorn::internal {

struct PromptImage {
    size_t start = 0; // index of its first token in MediaTokens::tokens
    size_t count = 0; // tokens (KV cells) it takes
    uint64_t hash = 0;
    std::shared_ptr<mtmd_input_chunk> chunk;
};

struct MediaTokens {
    std::vector<llama_token> tokens; // text tokens, and placeholders for image tokens
    std::vector<PromptImage> images;
};

uint64_t imageHash(const std::string &bytes);
// Placeholder ids are negative: never a real token.
llama_token imagePlaceholder(uint64_t hash, size_t index);

// Tokenizes `text`, whose image markers stand for `images` in order. ImageInvalid names the
// image libmtmd could not decode; TokenizeFailed when markers and images do not pair up.
Result<MediaTokens> tokenizeWithImages(mtmd_context *ctx, const std::string &text,
                                       const std::vector<const ImageData *> &images, bool addSpecial);

// Encoded images by hash, so a conversation does not encode its images again every turn.
class ImageEmbeddings
{
public:
    // The embeddings of `image`: from the cache or encoded now. Empty on failure.
    // Null when encoding failed or `cancel` stopped it (a stopped encoding is not kept).
    const std::vector<float> *get(mtmd_context *ctx, const PromptImage &image, size_t embdWidth,
                                  const std::atomic<bool> *cancel = nullptr);
    void clear() { m_cache.clear(); m_bytes = 0; }

private:
    std::map<uint64_t, std::vector<float>> m_cache;
    size_t m_bytes = 0;
};

} // namespace shoehorn::internal
