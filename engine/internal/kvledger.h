#pragma once

// Engine-internal: what a chat session's KV cache holds, token by token, and at which
// positions. Text tokens take one position each; an image's tokens all share its first
// position and it advances positions by what libmtmd says (fewer than its tokens with M-RoPE),
// so positions are kept here instead of being derived from counts.

#include <llama.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace shoehorn::internal {

class KvLedger
{
public:
    const std::vector<llama_token> &tokens() const { return m_tokens; }
    size_t size() const { return m_tokens.size(); }
    bool empty() const { return m_tokens.empty(); }
    llama_pos nextPos() const { return m_next; }
    // The position of token i (i < size()).
    llama_pos posAt(size_t i) const { return m_pos[i]; }

    void addText(const llama_token *tokens, int n);
    // `placeholders` stand for the image's tokens; `after` is the next free position.
    void addImage(const std::vector<llama_token> &placeholders, llama_pos after);
    // n, moved back to the start of an image it would cut (an image is cached whole or not at all).
    size_t wholeImages(size_t n) const;
    // Keeps the first `keep` tokens (positions from then on continue after them).
    void truncate(size_t keep);
    void clear();

private:
    std::vector<llama_token> m_tokens;
    std::vector<llama_pos> m_pos;
    std::vector<std::pair<size_t, size_t>> m_images; // start, count
    llama_pos m_next = 0;
};

} // namespace shoehorn::internal
