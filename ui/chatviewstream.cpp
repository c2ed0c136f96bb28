// ChatView: a message's content as it streams (completed blocks in chunks, the open tail at
// the end, the footer of links), and the first write of a long one slice by slice.
#include "chatview.h"
#include "chatview_p.h"

#include "chatmodel.h"
#include "messagefooter.h"
#include "messagewriter.h"

#include <QTextFrame>

namespace {
// Qt lays out a changed frame by walking its children from the start, so a long answer in
// one frame costs more per update the longer it gets. Completed blocks are therefore grouped
// into sub-frames: each walk sees a few dozen children, however long the answer is.
constexpr int kChunkSegments = 16;
} // namespace

// Brings the content of a message up to date: completed blocks are laid out once, the
// rest is the tail, which grows by appending while it stays the same kind.
void ChatView::stream(int row)
{
    Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    streamReasoning(row);
    if (m.reasoningMs >= 0 && r.hasThinkingHeader && !r.headerTimed)
        updateThinkingHeader(row);
    const bool final = m.state != ChatModel::State::Streaming;
    QList<MarkdownSplit::Segment> done = r.split.feed(m.content, final);
    if (!done.isEmpty()) {
        if (keepStreamedCode(row, done.front()))
            done.removeFirst();
        removeTail(r);
        writeSegments(row, done);
        if (!r.pending.isEmpty())
            return; // the rest in the next slice (resumeRow), then the tail or the footer
    }
    if (final) {
        removeTail(r);
        if (!r.finished) {
            r.finished = true;
            writeFooter(row);
        }
        return;
    }
    writeTail(row);
}

void ChatView::removeTail(Rendered &r)
{
    if (r.tailChars == 0)
        return;
    // A code tail is written where the block will stay, at the end of the last chunk (writeTail).
    const int tailEnd = r.tailIsCode && r.chunk ? r.chunk->lastPosition() : r.frame->lastPosition();
    QTextCursor c(document());
    c.setPosition(tailEnd - r.tailChars);
    c.setPosition(tailEnd, QTextCursor::KeepAnchor);
    c.removeSelectedText();
    r.tailChars = 0;
    r.tailText.clear();
    r.tailCode = nullptr;
    r.tailIsCode = false;
    r.tailIsNote = false;
}

// A streamed code block whose fence closed: the block on screen becomes the finished one, where
// writeSegments would have written it, instead of being written again (400 lines on screen:
// 8-10 ms and ~20,000 characters).
bool ChatView::keepStreamedCode(int row, const MarkdownSplit::Segment &s)
{
    Rendered &r = m_rendered[row];
    if (s.kind != MarkdownSplit::Segment::Code || !r.tailIsCode || !r.tailCode || !r.chunk)
        return false;
    const QString shown = displayedCode(s.text);
    // What the tail shows may end with part of the closing fence ("``"): cut back to what agrees.
    qsizetype same = 0;
    while (same < shown.size() && same < r.tailText.size() && shown[same] == r.tailText[same])
        ++same;
    if (same > 0 && shown[same - 1].isHighSurrogate())
        --same;
    QTextCursor c(document());
    c.setPosition(r.tailCode->firstPosition() + int(same));
    c.setPosition(r.tailCode->lastPosition(), QTextCursor::KeepAnchor);
    m_writer->appendCode(c, shown.mid(same)); // in place of the selection
    const int index = m_code->count();
    m_writer->setCopyHref(r.tailCode, QStringLiteral("copy:%1").arg(index));
    m_code->add(r.tailCode, s.language, s.text);
    ++r.chunkSegments;
    r.tailChars = 0; // the block stays
    r.tailText.clear();
    r.tailCode = nullptr;
    r.tailIsCode = false;
    return true;
}

// Where the message's next completed block goes: the end of its last chunk, or a new one.
QTextCursor ChatView::chunkEnd(Rendered &r)
{
    if (!r.chunk || r.chunkSegments >= kChunkSegments) {
        QTextCursor end = frameEnd(r);
        QTextFrameFormat ff;
        ff.setBorder(0);
        ff.setPadding(0);
        ff.setMargin(0);
        r.chunk = end.insertFrame(ff);
        r.chunkSegments = 0;
        // The empty paragraph Qt keeps after a frame: no visible gap.
        end.setPosition(r.chunk->lastPosition());
        end.movePosition(QTextCursor::NextCharacter);
        QTextBlockFormat thin;
        thin.setLineHeight(1, QTextBlockFormat::FixedHeight);
        end.setBlockFormat(thin);
    }
    QTextCursor c(document());
    c.setPosition(r.chunk->lastPosition());
    return c;
}

void ChatView::writeSegments(int row, const QList<MarkdownSplit::Segment> &segments)
{
    Rendered &r = m_rendered[row];
    for (qsizetype i = 0; i < segments.size(); ++i) {
        // A message written for the first time stops when catchUp's slice is used up (Qt lays
        // text out as it goes in: 500 paragraphs took 59 ms); one on screen is written whole.
        if (m_firstWrite && i > 0 && m_slice.elapsed() >= kSliceMs) {
            r.pending = segments.mid(i);
            return;
        }
        const MarkdownSplit::Segment &s = segments[i];
        QTextCursor c = chunkEnd(r);
        if (s.kind == MarkdownSplit::Segment::Markdown) {
            m_writer->markdown(c, s.text);
        } else {
            const int index = m_code->count();
            // A long block of a message written for the first time: its first lines now, the rest
            // slice by slice (CodeBlocks). One already on screen (a message laid out again) is
            // replaced at once, so that it does not shrink and grow again.
            const QString shown = displayedCode(s.text);
            const int head = m_firstWrite ? CodeBlocks::headLength(shown) : int(shown.size());
            QTextFrame *f = m_writer->codeBlock(c, s.language, shown.left(head), QStringLiteral("copy:%1").arg(index));
            m_code->add(f, s.language, s.text, shown.mid(head));
        }
        ++r.chunkSegments;
    }
}

void ChatView::writeTail(int row)
{
    Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    const bool code = r.split.inCode();
    QString text =
        code ? displayedCode(m.content.mid(r.split.codeStart())) : m.content.mid(r.split.boundary()).trimmed();
    // A "\r" that ends the text may be half of a "\r\n" cut by the batches (ChatModel then keeps
    // "\n"): shown with what follows it, so that the tail only grows.
    if (code && text.endsWith(QLatin1Char('\r')))
        text.chop(1);
    // Nothing written yet: the note says what the answer waits for (the prompt being read).
    const bool note = text.isEmpty() && !code && m.content.isEmpty() && m.reasoning.isEmpty() && !m.note.isEmpty();
    if (note)
        text = m.note;
    if (text == r.tailText && code == r.tailIsCode && note == r.tailIsNote)
        return;
    // Same kind and it only grew: append the new characters.
    if (r.tailChars > 0 && !note && !r.tailIsNote && code == r.tailIsCode && text.startsWith(r.tailText)) {
        const QString add = text.mid(r.tailText.size());
        // Counted in the document: Qt turns "\r\n" into one paragraph break, for example.
        const int before = r.frame->lastPosition();
        QTextCursor c(document());
        if (code && r.tailCode) {
            c.setPosition(r.tailCode->lastPosition());
            m_writer->appendCode(c, add);
        } else {
            c = frameEnd(r);
            c.insertText(add, QTextCharFormat());
        }
        r.tailChars += r.frame->lastPosition() - before;
        r.tailText = text;
        return;
    }
    removeTail(r);
    if (text.isEmpty() && !code)
        return;
    QTextCursor c = code ? chunkEnd(r) : frameEnd(r);
    const int before = r.frame->lastPosition(); // what is inserted in the chunk moves this as much
    if (code)
        r.tailCode = m_writer->codeBlock(c, r.split.codeLanguage(), text, QString());
    else if (note)
        c.insertText(text, m_writer->noteFormat());
    else
        m_writer->plain(c, text);
    r.tailChars = r.frame->lastPosition() - before;
    r.tailText = text;
    r.tailIsCode = code;
    r.tailIsNote = note;
}

void ChatView::writeFooter(int row)
{
    Rendered &r = m_rendered[row];
    const int before = r.frame->lastPosition();
    QTextCursor c = frameEnd(r);
    MessageFooter::write(c, *m_writer, m_model->message(row), row == m_model->rowCount() - 1,
                         [&](const QString &action) { return actionHref(row, action); });
    r.footerChars = r.frame->lastPosition() - before;
}

void ChatView::removeFooter(Rendered &r)
{
    if (r.footerChars == 0)
        return;
    QTextCursor c = frameEnd(r);
    c.setPosition(r.frame->lastPosition() - r.footerChars, QTextCursor::KeepAnchor);
    c.removeSelectedText();
    r.footerChars = 0;
}
