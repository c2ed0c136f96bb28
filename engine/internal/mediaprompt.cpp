#include "mediaprompt.h"

#include <mtmd-helper.h>
#include <mtmd.h>

namespace shoehorn::internal {

namespace {

uint64_t imageHash(const std::string &bytes)
{
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

} // namespace

Result<server_tokens> tokenizeWithImages(mtmd_context *ctx, const std::string &text,
                                         const std::vector<const ImageData *> &images, bool addSpecial)
{
    mtmd::bitmaps bitmaps;
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
        mtmd_bitmap_set_id(w.bitmap, std::to_string(imageHash(images[i]->bytes)).c_str());
        bitmaps.entries.emplace_back(w.bitmap);
    }
    mtmd::input_chunks chunks(mtmd_input_chunks_init());
    const mtmd_input_text in{text.c_str(), text.size(), addSpecial, true};
    auto raw = bitmaps.c_ptr();
    const int32_t rc = mtmd_tokenize(ctx, chunks.ptr.get(), &in, raw.data(), raw.size());
    if (rc == 1)
        return Error{ErrorCode::TokenizeFailed, "the prompt's image markers do not match its " +
                                                    std::to_string(images.size()) + " images"};
    if (rc != 0)
        return Error{ErrorCode::ImageInvalid, "llama.cpp could not prepare an image for the projector"};
    return server_tokens(chunks, true);
}

void append(server_tokens &head, const server_tokens &tail)
{
    for (size_t i = 0; i < tail.size();) {
        if (tail[i] != LLAMA_TOKEN_NULL) {
            head.push_back(tail[i]);
            ++i;
            continue;
        }
        const mtmd_input_chunk *chunk = tail.find_chunk(i).get();
        head.push_back(chunk); // a copy
        i += mtmd_input_chunk_get_n_tokens(chunk);
    }
}

std::vector<size_t> imageStarts(const server_tokens &tokens)
{
    std::vector<size_t> starts;
    size_t at = 0;
    if (!tokens.empty() && tokens[0] == LLAMA_TOKEN_NULL) { // an image first (find_next_media_chunk looks past 0)
        starts.push_back(0);
        at = mtmd_input_chunk_get_n_tokens(tokens.find_chunk(0).get());
    }
    for (;;) {
        const auto [chunk, start] = tokens.find_next_media_chunk(at);
        if (!chunk)
            break;
        starts.push_back(start);
        at = start + mtmd_input_chunk_get_n_tokens(chunk->get());
    }
    return starts;
}

} // namespace shoehorn::internal
