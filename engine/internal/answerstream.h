#pragma once

// Engine-internal: the text side of answering, for ChatSession.

#include "chatsession.h"
#include "chattemplate.h"
#include "textstream.h"

#include <string>

namespace shoehorn::internal {

// Turns token text into content and reasoning deltas: complete UTF-8 only, stop strings held
// back until they are clear, reasoning split from the answer.
class AnswerStream
{
public:
    AnswerStream(const ChatPrompt &p, GenerationResult &result, const StreamCallbacks &callbacks)
        : m_stops(p.stops), m_splitter(p.startTag, p.endTags, p.startInReasoning), m_result(result),
          m_callbacks(callbacks)
    {
    }
    void push(const std::string &piece) { emit(m_stops.push(m_utf8.push(piece))); }
    bool stopped() const { return m_stops.stopped(); }
    void finish()
    {
        emit(m_stops.push(m_utf8.flush()));
        emit(m_stops.flush());
        deliver(m_splitter.flush());
    }

private:
    void emit(const std::string &text)
    {
        if (!text.empty())
            deliver(m_splitter.push(text));
    }
    void deliver(const ReasoningSplitter::Out &parts)
    {
        m_result.content += parts.content;
        m_result.reasoning += parts.reasoning;
        if (m_callbacks.onDelta && (!parts.content.empty() || !parts.reasoning.empty()))
            m_callbacks.onDelta(parts.content, parts.reasoning);
    }

    Utf8Assembler m_utf8;
    StopStringFilter m_stops;
    ReasoningSplitter m_splitter;
    GenerationResult &m_result;
    const StreamCallbacks &m_callbacks;
};

} // namespace shoehorn::internal
