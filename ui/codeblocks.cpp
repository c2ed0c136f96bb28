#include "codeblocks.h"

#include "messagewriter.h"

#include <QTextFrame>

CodeBlocks::CodeBlocks(Colour colour, Append append, QObject *parent)
    : QObject(parent), m_colour(std::move(colour)), m_append(std::move(append)), m_highlighter(new CodeHighlighter(this))
{
    m_nextSlice.setSingleShot(true);
    m_nextSlice.setInterval(0);
    connect(&m_nextSlice, &QTimer::timeout, this, &CodeBlocks::nextSlice);
    connect(m_highlighter, &CodeHighlighter::highlighted, this, &CodeBlocks::onHighlighted);
    connect(m_highlighter, &CodeHighlighter::failed, this, [this](int ticket) { m_pending.remove(ticket); });
}

namespace {
// Where to cut `text` for one write: at a line's end at most `most` characters in (the next
// piece starts with its "\n"), or at `most` in a line longer than that.
int cutAt(const QString &text, int most)
{
    if (text.size() <= most)
        return int(text.size());
    const int newline = int(text.lastIndexOf(QLatin1Char('\n'), most));
    if (newline > 0)
        return newline;
    return text.at(most - 1).isHighSurrogate() ? most - 1 : most; // not inside a character
}
} // namespace

int CodeBlocks::headLength(const QString &shown)
{
    return cutAt(shown, kChunkChars);
}

int CodeBlocks::add(QTextFrame *frame, const QString &language, const QString &code, const QString &rest)
{
    const int index = int(m_blocks.size());
    m_blocks.append({frame, code, false, rest, std::nullopt});
    if (!rest.isEmpty())
        m_appending.append(index);
    // Sent in the next slice: hashing the code and starting the tool took 5 ms for 2000 lines,
    // on top of the turn that writes the message.
    m_toRequest.append({index, language});
    if (!m_nextSlice.isActive())
        m_nextSlice.start();
    return index;
}

void CodeBlocks::clear()
{
    m_blocks.clear();
    m_pending.clear();
    m_toRequest.clear();
    m_appending.clear();
    m_colouring.clear();
}

QString CodeBlocks::text(int index) const
{
    return index >= 0 && index < m_blocks.size() ? displayedCode(m_blocks[index].code) : QString();
}

QString CodeBlocks::code(int index) const
{
    return index >= 0 && index < m_blocks.size() ? m_blocks[index].code : QString();
}

QTextFrame *CodeBlocks::frame(int index) const
{
    return index >= 0 && index < m_blocks.size() ? m_blocks[index].frame.data() : nullptr;
}

bool CodeBlocks::highlighted(int index) const
{
    return index >= 0 && index < m_blocks.size() && m_blocks[index].highlighted;
}

void CodeBlocks::onHighlighted(int ticket, const CodeHighlighter::Result &result)
{
    // A ticket from before a rebuild is no longer known: its block is gone.
    const auto pending = m_pending.find(ticket);
    if (pending == m_pending.end())
        return;
    const int index = pending.value();
    m_pending.erase(pending);
    if (index < 0 || index >= m_blocks.size() || !m_blocks[index].frame)
        return;
    const Block &b = m_blocks[index];
    if (displayedCode(result.text) != displayedCode(b.code)) // (the tool may end it with a newline)
        return;
    if (!b.rest.isEmpty()) {
        m_blocks[index].waiting = result; // coloured once all its text is there
        return;
    }
    m_colouring.append({index, result, {}});
    if (!m_nextSlice.isActive()) // results from the cache come several in one turn: one slice
        m_nextSlice.start();
}

void CodeBlocks::nextSlice()
{
    for (const auto &[index, language] : std::as_const(m_toRequest)) // m_toRequest is emptied with m_blocks
        if (m_blocks[index].frame) // not laid out again meanwhile
            m_pending.insert(m_highlighter->request(language, displayedCode(m_blocks[index].code)), index);
    m_toRequest.clear();
    const QDeadlineTimer deadline(kSliceMs);
    appendSlice(deadline);
    colourSlice(deadline);
    if (!m_appending.isEmpty() || !m_colouring.isEmpty())
        m_nextSlice.start(); // the rest after the event loop's other work
}

void CodeBlocks::appendSlice(const QDeadlineTimer &deadline)
{
    while (!m_appending.isEmpty() && !deadline.hasExpired()) {
        const int index = m_appending.first(); // m_appending is emptied with m_blocks
        QTextFrame *frame = m_blocks[index].frame;
        const QString &rest = m_blocks[index].rest;
        const int n = frame ? cutAt(rest, kChunkChars) : int(rest.size());
        const QString piece = rest.left(n);
        m_blocks[index].rest.remove(0, n);
        if (frame)
            m_append(frame, piece);
        if (index >= m_blocks.size()) // cleared by what the append set off
            return;
        if (!m_blocks[index].rest.isEmpty())
            continue;
        m_appending.removeFirst();
        if (Block &b = m_blocks[index]; b.waiting) {
            m_colouring.append({index, *b.waiting, {}});
            b.waiting.reset();
        }
    }
}

void CodeBlocks::colourSlice(const QDeadlineTimer &deadline)
{
    while (!m_colouring.isEmpty() && !deadline.hasExpired()) {
        Colouring &c = m_colouring.first();
        QTextFrame *frame = m_blocks[c.index].frame; // m_colouring is emptied with m_blocks
        if (frame && !m_colour(frame, c.result, c.state, deadline))
            break;
        const int index = c.index;
        m_colouring.removeFirst();
        if (frame) {
            m_blocks[index].highlighted = true;
            emit coloured(index);
        }
    }
}
