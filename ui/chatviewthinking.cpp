// ChatView: an answer's thinking, folded under "Thought for N s" (a link that opens and closes
// it), live while it streams.
#include "chatview.h"
#include "chatview_p.h"

#include "chatmodel.h"
#include "messagewriter.h"

#include <QTextFrame>

void ChatView::writeThinkingHeader(int row, QTextCursor &c)
{
    Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    MessageWriter::newBlock(c);
    r.thinkingHeader = c;
    r.hasThinkingHeader = true;
    const int start = c.position();
    const QString arrow = r.thinkingOpen ? QStringLiteral("▾ ") : QStringLiteral("▸ ");
    QString label;
    if (m.reasoningMs >= 0) {
        label = tr("Thought for %1 s").arg(double(m.reasoningMs) / 1000.0, 0, 'f', 1);
        r.headerTimed = true;
    } else {
        label = m.state == ChatModel::State::Streaming ? tr("Thinking…") : tr("Thoughts");
    }
    c.insertText(arrow + label, m_writer->linkFormat(QStringLiteral("think:%1").arg(r.key)));
    r.thinkingHeader.setPosition(start);
    if (r.thinkingOpen) {
        QTextFrameFormat ff;
        ff.setLeftMargin(12);
        ff.setBorder(0);
        r.thinking = c.insertFrame(ff);
        c.insertText(m.reasoning.trimmed(), m_writer->reasoningFormat());
        // Trailing white space goes in with the text after it (a line break before the next line).
        qsizetype shown = m.reasoning.size();
        while (shown > 0 && m.reasoning.at(shown - 1).isSpace())
            --shown;
        r.reasoningShown = shown;
        c.setPosition(r.thinking->lastPosition());
        c.movePosition(QTextCursor::NextCharacter);
    } else {
        r.reasoningShown = m.reasoning.size();
    }
}

void ChatView::updateThinkingHeader(int row)
{
    Rendered &r = m_rendered[row];
    if (!r.hasThinkingHeader)
        return;
    const auto &m = m_model->message(row);
    QTextCursor c = r.thinkingHeader;
    const int start = c.position();
    c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    const QString arrow = r.thinkingOpen ? QStringLiteral("▾ ") : QStringLiteral("▸ ");
    c.insertText(arrow + tr("Thought for %1 s").arg(double(m.reasoningMs) / 1000.0, 0, 'f', 1),
                 m_writer->linkFormat(QStringLiteral("think:%1").arg(r.key)));
    r.thinkingHeader.setPosition(start);
    r.headerTimed = true;
}

void ChatView::streamReasoning(int row)
{
    Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    if (m.reasoning.size() <= r.reasoningShown)
        return;
    if (!r.hasThinkingHeader) {
        if (r.split.boundary() > 0 || r.tailChars > 0) {
            relayoutRow(row); // thinking after the answer began: rare, lay the message out again
            return;
        }
        QTextCursor c = frameEnd(r);
        writeThinkingHeader(row, c);
        return;
    }
    if (r.thinkingOpen && r.thinking) {
        QTextCursor c(document());
        c.setPosition(r.thinking->lastPosition());
        QString add = m.reasoning.mid(r.reasoningShown);
        if (r.reasoningShown == 0)
            add = add.trimmed();
        c.insertText(add, m_writer->reasoningFormat());
    }
    r.reasoningShown = m.reasoning.size();
}

bool ChatView::isThinkingExpanded(int row) const
{
    return row >= 0 && row < m_rendered.size() && m_rendered[row].thinkingOpen;
}

void ChatView::setThinkingExpanded(int row, bool expanded)
{
    if (row < 0 || row >= m_rendered.size() || m_rendered[row].thinkingOpen == expanded)
        return;
    m_rendered[row].thinkingOpen = expanded;
    relayoutRow(row);
}
