#include "codeblocks.h"

#include "messagewriter.h"

#include <QTextFrame>

CodeBlocks::CodeBlocks(Colour colour, QObject *parent)
    : QObject(parent), m_colour(std::move(colour)), m_highlighter(new CodeHighlighter(this))
{
    m_nextSlice.setSingleShot(true);
    m_nextSlice.setInterval(0);
    connect(&m_nextSlice, &QTimer::timeout, this, &CodeBlocks::colourSlice);
    connect(m_highlighter, &CodeHighlighter::highlighted, this, &CodeBlocks::onHighlighted);
    connect(m_highlighter, &CodeHighlighter::failed, this, [this](int ticket) { m_pending.remove(ticket); });
}

int CodeBlocks::add(QTextFrame *frame, const QString &language, const QString &code)
{
    const int index = int(m_blocks.size());
    m_blocks.append({frame, code, false});
    m_pending.insert(m_highlighter->request(language, displayedCode(code)), index);
    return index;
}

void CodeBlocks::clear()
{
    m_blocks.clear();
    m_pending.clear();
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
    m_colouring.append({index, result, {}});
    if (!m_nextSlice.isActive()) // results from the cache come several in one turn: one slice
        m_nextSlice.start();
}

void CodeBlocks::colourSlice()
{
    const QDeadlineTimer deadline(kSliceMs);
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
    if (!m_colouring.isEmpty())
        m_nextSlice.start(); // the rest after the event loop's other work
}
