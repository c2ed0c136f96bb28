#include "codeblocks.h"

#include "messagewriter.h"

#include <QTextFrame>

CodeBlocks::CodeBlocks(QObject *parent) : QObject(parent), m_highlighter(new CodeHighlighter(this))
{
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
    if (result.text != displayedCode(b.code) && result.text != b.code)
        return;
    emit ready(index, result);
}
