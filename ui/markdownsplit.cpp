#include "markdownsplit.h"

namespace {
// A fence line: up to 3 spaces, then ``` or ~~~ (3 or more), then an optional info string.
bool parseFence(QStringView line, QChar &ch, int &length, QString &info)
{
    int i = 0;
    while (i < line.size() && i < 3 && line[i] == QLatin1Char(' '))
        ++i;
    if (i >= line.size() || (line[i] != QLatin1Char('`') && line[i] != QLatin1Char('~')))
        return false;
    const QChar c = line[i];
    int n = 0;
    while (i + n < line.size() && line[i + n] == c)
        ++n;
    if (n < 3)
        return false;
    const QString rest = line.mid(i + n).trimmed().toString();
    if (c == QLatin1Char('`') && rest.contains(QLatin1Char('`')))
        return false;
    ch = c;
    length = n;
    info = rest.section(QLatin1Char(' '), 0, 0);
    return true;
}

bool isBlank(QStringView line)
{
    return line.trimmed().isEmpty();
}

// "1. ", "2) ", "- ", "* ", "+ " at the start of a line: the next item of a list, which must
// stay in the same block as the items before it (Qt would number a list cut there from 1).
bool isListItem(QStringView line)
{
    if (line.size() >= 2 && (line[0] == u'-' || line[0] == u'*' || line[0] == u'+') && line[1] == u' ')
        return true;
    int i = 0;
    while (i < line.size() && i < 9 && line[i].isDigit())
        ++i;
    return i > 0 && i + 1 < line.size() && (line[i] == u'.' || line[i] == u')') && line[i + 1] == u' ';
}

// Whether text after a blank line starts a new block (rather than continuing the open one,
// whose text is `open`).
bool startsNewBlock(QStringView line, QStringView open)
{
    if (line.isEmpty() || line.startsWith(u' ') || line.startsWith(u'\t'))
        return false;
    if (!isListItem(line))
        return true;
    qsizetype i = 0;
    while (i < open.size() && open[i].isSpace())
        ++i;
    return !isListItem(open.mid(i)); // a list item continues an open list only
}
} // namespace

QList<MarkdownSplit::Segment> MarkdownSplit::feed(const QString &text, bool final)
{
    QList<Segment> out;
    auto flushMarkdown = [&](qsizetype end) {
        const QString md = text.mid(m_boundary, end - m_boundary);
        if (!isBlank(md))
            out.append({Segment::Markdown, md, {}, true});
        m_boundary = end;
        m_blankAt = -1;
    };
    while (m_scanned < text.size()) {
        const qsizetype nl = text.indexOf(QLatin1Char('\n'), m_scanned);
        if (nl < 0 && !final) {
            // The last line is still being written; its first character already tells
            // whether the block before a blank line is complete.
            // (A digit may still become "12. "; wait for a few characters then.)
            const QStringView partial = QStringView(text).mid(m_scanned);
            const bool undecided = !partial.isEmpty() && (partial[0].isDigit() || partial[0] == u'-' ||
                                                         partial[0] == u'*' || partial[0] == u'+') &&
                                   partial.size() < 12;
            if (!m_inFence && m_blankAt >= 0 && !undecided &&
                startsNewBlock(partial, QStringView(text).mid(m_boundary, m_scanned - m_boundary)))
                flushMarkdown(m_scanned);
            break;
        }
        const qsizetype lineEnd = nl < 0 ? text.size() : nl;
        const qsizetype next = nl < 0 ? text.size() : nl + 1;
        const QStringView line = QStringView(text).mid(m_scanned, lineEnd - m_scanned);
        QChar ch;
        int length = 0;
        QString info;
        if (m_inFence) {
            if (parseFence(line, ch, length, info) && ch == m_fenceChar && length >= m_fenceLength && info.isEmpty()) {
                out.append({Segment::Code, text.mid(m_codeStart, m_scanned - m_codeStart), m_language, true});
                m_inFence = false;
                m_boundary = next;
            }
        } else if (parseFence(line, ch, length, info)) {
            flushMarkdown(m_scanned);
            m_inFence = true;
            m_fenceChar = ch;
            m_fenceLength = length;
            m_language = info;
            m_codeStart = next;
        } else if (isBlank(line)) {
            if (m_blankAt < 0)
                m_blankAt = m_scanned;
        } else if (m_blankAt >= 0) {
            // Text after a blank line: unindented, it starts a new block; indented, or the
            // next list item, it continues the open block.
            if (startsNewBlock(line, QStringView(text).mid(m_boundary, m_scanned - m_boundary)))
                flushMarkdown(m_scanned);
            else
                m_blankAt = -1;
        }
        m_scanned = next;
    }
    if (final) {
        if (m_inFence) {
            out.append({Segment::Code, text.mid(m_codeStart), m_language, false});
            m_inFence = false;
            m_boundary = text.size();
        } else {
            flushMarkdown(text.size());
        }
    }
    return out;
}
