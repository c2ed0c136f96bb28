#include "kvledger.h"

#include <algorithm>

namespace shoehorn::internal {

void KvLedger::addText(const llama_token *tokens, int n)
{
    for (int i = 0; i < n; ++i) {
        m_tokens.push_back(tokens[i]);
        m_pos.push_back(m_next++);
    }
}

void KvLedger::addImage(const std::vector<llama_token> &placeholders, llama_pos after)
{
    m_images.emplace_back(m_tokens.size(), placeholders.size());
    m_tokens.insert(m_tokens.end(), placeholders.begin(), placeholders.end());
    m_pos.insert(m_pos.end(), placeholders.size(), m_next);
    m_next = after;
}

size_t KvLedger::wholeImages(size_t n) const
{
    for (const auto &[start, count] : m_images) {
        if (n > start && n < start + count)
            return start;
    }
    return n;
}

void KvLedger::truncate(size_t keep)
{
    if (keep >= m_tokens.size())
        return;
    m_next = m_pos[keep];
    m_tokens.resize(keep);
    m_pos.resize(keep);
    std::erase_if(m_images, [&](const auto &img) { return img.first >= keep; });
}

void KvLedger::clear()
{
    m_tokens.clear();
    m_pos.clear();
    m_images.clear();
    m_next = 0;
}

} // namespace shoehorn::internal
