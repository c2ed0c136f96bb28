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
            const QStringView partial = QStringView(text).mid(m_scanned);
            if (!m_inFence && m_blankAt >= 0 && !partial.isEmpty() && !partial.startsWith(QLatin1Char(' ')) &&
                !partial.startsWith(QLatin1Char('\t')))
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
            // Text after a blank line: unindented, it starts a new block; indented, it
            // continues a list item or is indented code, so the block stays open.
            if (!line.startsWith(QLatin1Char(' ')) && !line.startsWith(QLatin1Char('\t')))
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
