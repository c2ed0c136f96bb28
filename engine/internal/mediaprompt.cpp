#include "mediaprompt.h"

#include <mtmd-helper.h>
#include <mtmd.h>

#include <cstring>

namespace shoehorn::internal {

namespace {
using BitmapPtr = std::unique_ptr<mtmd_bitmap, decltype(&mtmd_bitmap_free)>;
using ChunksPtr = std::unique_ptr<mtmd_input_chunks, decltype(&mtmd_input_chunks_free)>;
constexpr size_t kMaxCachedEmbeddingBytes = 512ull << 20;
} // namespace

uint64_t imageHash(const std::string &bytes)
{
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

llama_token imagePlaceholder(uint64_t hash, size_t index)
{
    return -1 - static_cast<llama_token>(((hash >> 2) + index * 2654435761ull) % 0x3fffffffull);
}

Result<MediaTokens> tokenizeWithImages(mtmd_context *ctx, const std::string &text,
                                       const std::vector<const ImageData *> &images, bool addSpecial)
{
    std::vector<BitmapPtr> bitmaps;
    std::vector<const mtmd_bitmap *> raw;
    std::vector<uint64_t> hashes;
    for (size_t i = 0; i < images.size(); ++i) {
        auto probe = probeImage(images[i]->bytes);
        if (!probe)
            return Error{ErrorCode::ImageInvalid, "image " + std::to_string(i + 1) + ": " + probe.error().detail};
        const auto *buf = reinterpret_cast<const unsigned char *>(images[i]->bytes.data());
        mtmd_helper_bitmap_wrapper w =
            mtmd_helper_bitmap_init_from_buf(ctx, buf, images[i]->bytes.size(), false, mtmd_helper_init_opt_default());
        if (w.video_ctx)
            mtmd_helper_video_free(w.video_ctx);
        if (!w.bitmap)
            return Error{ErrorCode::ImageInvalid,
                         "image " + std::to_string(i + 1) + " could not be decoded (damaged or truncated?)"};
        hashes.push_back(imageHash(images[i]->bytes));
        mtmd_bitmap_set_id(w.bitmap, std::to_string(hashes.back()).c_str());
        bitmaps.emplace_back(w.bitmap, &mtmd_bitmap_free);
        raw.push_back(w.bitmap);
    }
    ChunksPtr chunks(mtmd_input_chunks_init(), &mtmd_input_chunks_free);
    const mtmd_input_text in{text.c_str(), text.size(), addSpecial, true};
    const int32_t rc = mtmd_tokenize(ctx, chunks.get(), &in, raw.data(), raw.size());
    if (rc == 1)
        return Error{ErrorCode::TokenizeFailed, "the prompt's image markers do not match its " +
                                                    std::to_string(images.size()) + " images"};
    if (rc != 0)
        return Error{ErrorCode::ImageInvalid, "llama.cpp could not prepare an image for the projector"};

    MediaTokens out;
    size_t imageIndex = 0;
    for (size_t c = 0; c < mtmd_input_chunks_size(chunks.get()); ++c) {
        const mtmd_input_chunk *chunk = mtmd_input_chunks_get(chunks.get(), c);
        if (mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
            size_t n = 0;
            const llama_token *t = mtmd_input_chunk_get_tokens_text(chunk, &n);
            out.tokens.insert(out.tokens.end(), t, t + n);
            continue;
        }
        PromptImage img;
        img.start = out.tokens.size();
        img.count = mtmd_input_chunk_get_n_tokens(chunk);
        img.hash = imageIndex < hashes.size() ? hashes[imageIndex] : 0;
        ++imageIndex;
        img.chunk.reset(mtmd_input_chunk_copy(chunk), &mtmd_input_chunk_free);
        for (size_t k = 0; k < img.count; ++k)
            out.tokens.push_back(imagePlaceholder(img.hash, k));
        out.images.push_back(std::move(img));
    }
    return out;
}

const std::vector<float> *ImageEmbeddings::get(mtmd_context *ctx, const PromptImage &image, size_t embdWidth,
                                               const std::atomic<bool> *cancel)
{
    if (auto it = m_cache.find(image.hash); it != m_cache.end())
        return &it->second;
    if (mtmd_encode_chunk(ctx, image.chunk.get()) != 0 || (cancel && cancel->load()))
        return nullptr;
    const float *embd = mtmd_get_output_embd(ctx);
    if (!embd)
        return nullptr;
    std::vector<float> v(embd, embd + image.count * embdWidth);
    if (m_bytes + v.size() * sizeof(float) > kMaxCachedEmbeddingBytes)
        clear();
    m_bytes += v.size() * sizeof(float);
    return &(m_cache[image.hash] = std::move(v));
}

} // namespace shoehorn::internal
