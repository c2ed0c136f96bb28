#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shoehorn {

// Token pieces are byte strings and may end inside a UTF-8 sequence. The assembler releases
// only complete characters; invalid bytes become U+FFFD so what it emits is always valid UTF-8.
class Utf8Assembler
{
public:
    // Appends bytes; returns the newly completed text.
    std::string push(std::string_view bytes);
    // At the end of a stream: whatever is left (an incomplete tail becomes U+FFFD).
    std::string flush();
    bool hasPending() const { return !m_pending.empty(); }

private:
    std::string m_pending;
};

// Stop strings may arrive split over several tokens, so text that could be the start of one
// is held back until it is clear.
class StopStringFilter
{
public:
    explicit StopStringFilter(std::vector<std::string> stops = {});
    // Returns the text that is safe to emit. Sets stopped() when a stop string completed;
    // the stop string itself and anything after it are dropped.
    std::string push(std::string_view text);
    std::string flush();
    bool stopped() const { return m_stopped; }
    const std::string &matched() const { return m_matched; }

private:
    std::vector<std::string> m_stops;
    std::string m_held;
    std::string m_matched;
    bool m_stopped = false;
};

// Splits a model's output into reasoning ("thinking") and answer, from the tags the chat
// template declares (e.g. "<think>" and "</think>"). Works on deltas with O(delta) cost.
class ReasoningSplitter
{
public:
    struct Out {
        std::string reasoning;
        std::string content;
    };

    ReasoningSplitter() = default;
    // startInReasoning: the template already opened the block in the generation prompt.
    ReasoningSplitter(std::string startTag, std::vector<std::string> endTags, bool startInReasoning);
    Out push(std::string_view text);
    Out flush();
    bool inReasoning() const { return m_state == State::Reasoning; }

private:
    enum class State { Start, Reasoning, Content };
    std::string m_startTag;
    std::vector<std::string> m_endTags;
    State m_state = State::Content;
    std::string m_held;
    bool m_trimAnswerStart = false;
};

// Length of the longest suffix of `text` that is a proper prefix of `tag`.
size_t partialSuffixMatch(std::string_view text, std::string_view tag);

} // namespace shoehorn
