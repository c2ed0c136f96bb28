#include "textstream.h"

#include <algorithm>

namespace shoehorn {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Expected length of a sequence from its lead byte; 0 for an invalid lead.
int sequenceLength(unsigned char c)
{
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) return 2;
    if (c >= 0xE0 && c <= 0xEF) return 3;
    if (c >= 0xF0 && c <= 0xF4) return 4;
    return 0;
}

bool validContinuation(unsigned char lead, size_t index, unsigned char c)
{
    if ((c & 0xC0) != 0x80)
        return false;
    if (index == 1) { // exclude overlongs, surrogates and > U+10FFFF
        if (lead == 0xE0 && c < 0xA0) return false;
        if (lead == 0xED && c > 0x9F) return false;
        if (lead == 0xF0 && c < 0x90) return false;
        if (lead == 0xF4 && c > 0x8F) return false;
    }
    return true;
}
} // namespace

std::string Utf8Assembler::push(std::string_view bytes)
{
    m_pending.append(bytes);
    std::string out;
    out.reserve(m_pending.size());
    size_t i = 0;
    const size_t n = m_pending.size();
    while (i < n) {
        const auto lead = static_cast<unsigned char>(m_pending[i]);
        const int len = sequenceLength(lead);
        if (len == 0) {
            out += kReplacement;
            ++i;
            continue;
        }
        if (len == 1) {
            out += static_cast<char>(lead);
            ++i;
            continue;
        }
        size_t j = 1;
        bool bad = false;
        for (; j < static_cast<size_t>(len) && i + j < n; ++j) {
            if (!validContinuation(lead, j, static_cast<unsigned char>(m_pending[i + j]))) {
                bad = true;
                break;
            }
        }
        if (bad) {
            out += kReplacement;
            i += j; // resynchronise at the offending byte
            continue;
        }
        if (i + static_cast<size_t>(len) > n)
            break; // incomplete: wait for the next piece
        out.append(m_pending, i, static_cast<size_t>(len));
        i += static_cast<size_t>(len);
    }
    m_pending.erase(0, i);
    return out;
}

std::string Utf8Assembler::flush()
{
    std::string out = m_pending.empty() ? std::string() : std::string(kReplacement);
    m_pending.clear();
    return out;
}

size_t partialSuffixMatch(std::string_view text, std::string_view tag)
{
    const size_t maxLen = std::min(text.size(), tag.empty() ? 0 : tag.size() - 1);
    for (size_t len = maxLen; len > 0; --len) {
        if (text.substr(text.size() - len) == tag.substr(0, len))
            return len;
    }
    return 0;
}

StopStringFilter::StopStringFilter(std::vector<std::string> stops)
{
    for (auto &s : stops)
        if (!s.empty())
            m_stops.push_back(std::move(s));
}

std::string StopStringFilter::push(std::string_view text)
{
    if (m_stopped)
        return {};
    if (m_stops.empty())
        return std::string(text);
    m_held.append(text);
    size_t first = std::string::npos;
    for (const auto &s : m_stops) {
        const size_t pos = m_held.find(s);
        if (pos < first) {
            first = pos;
            m_matched = s;
        }
    }
    if (first != std::string::npos) {
        m_stopped = true;
        std::string out = m_held.substr(0, first);
        m_held.clear();
        return out;
    }
    size_t hold = 0;
    for (const auto &s : m_stops)
        hold = std::max(hold, partialSuffixMatch(m_held, s));
    std::string out = m_held.substr(0, m_held.size() - hold);
    m_held.erase(0, m_held.size() - hold);
    return out;
}

std::string StopStringFilter::flush()
{
    std::string out;
    out.swap(m_held);
    return m_stopped ? std::string() : out;
}

ReasoningSplitter::ReasoningSplitter(std::string startTag, std::vector<std::string> endTags, bool startInReasoning)
    : m_startTag(std::move(startTag)), m_endTags(std::move(endTags))
{
    std::erase_if(m_endTags, [](const std::string &t) { return t.empty(); });
    if (m_endTags.empty())
        m_state = State::Content;
    else if (startInReasoning)
        m_state = State::Reasoning;
    else
        m_state = m_startTag.empty() ? State::Content : State::Start;
}

ReasoningSplitter::Out ReasoningSplitter::push(std::string_view text)
{
    Out out;
    m_held.append(text);
    for (;;) {
        if (m_state == State::Content) {
            if (m_trimAnswerStart) {
                // The answer usually starts after a blank line following the end tag.
                const size_t ns = m_held.find_first_not_of("\r\n");
                if (ns == std::string::npos) {
                    m_held.clear();
                    return out;
                }
                m_held.erase(0, ns);
                m_trimAnswerStart = false;
            }
            out.content += m_held;
            m_held.clear();
            return out;
        }
        if (m_state == State::Start) {
            // Leading whitespace before the tag is allowed; anything else means no reasoning.
            const size_t nonSpace = m_held.find_first_not_of(" \t\r\n");
            if (nonSpace == std::string::npos)
                return out;
            const std::string_view rest = std::string_view(m_held).substr(nonSpace);
            if (rest.size() >= m_startTag.size()) {
                if (rest.substr(0, m_startTag.size()) == m_startTag) {
                    m_held.erase(0, nonSpace + m_startTag.size());
                    m_state = State::Reasoning;
                } else {
                    m_state = State::Content;
                }
                continue;
            }
            if (m_startTag.compare(0, rest.size(), rest) == 0)
                return out; // could still become the tag
            m_state = State::Content;
            continue;
        }
        // Reasoning: look for an end tag.
        size_t best = std::string::npos;
        size_t bestLen = 0;
        for (const auto &t : m_endTags) {
            const size_t p = m_held.find(t);
            if (p < best) {
                best = p;
                bestLen = t.size();
            }
        }
        if (best != std::string::npos) {
            out.reasoning += m_held.substr(0, best);
            m_held.erase(0, best + bestLen);
            m_trimAnswerStart = true;
            m_state = State::Content;
            continue;
        }
        size_t hold = 0;
        for (const auto &t : m_endTags)
            hold = std::max(hold, partialSuffixMatch(m_held, t));
        out.reasoning += m_held.substr(0, m_held.size() - hold);
        m_held.erase(0, m_held.size() - hold);
        return out;
    }
}

ReasoningSplitter::Out ReasoningSplitter::flush()
{
    Out out;
    if (m_state == State::Reasoning)
        out.reasoning = m_held;
    else
        out.content = m_held;
    m_held.clear();
    return out;
}

} // namespace shoehorn
