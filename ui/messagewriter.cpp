#include "messagewriter.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFrame>

QString displayedCode(const QString &code)
{
    return code.endsWith(QLatin1Char('\n')) ? code.chopped(1) : code;
}

MessageWriter::MessageWriter(const QPalette &palette, const QFont &font)
    : m_palette(palette), m_font(font), m_fixed(QFontDatabase::systemFont(QFontDatabase::FixedFont))
{
    m_fixed.setPointSizeF(font.pointSizeF() * 0.95);
}

void MessageWriter::newBlock(QTextCursor &c)
{
    if (!(c.atBlockStart() && c.block().length() <= 1)) {
        c.insertBlock(QTextBlockFormat(), QTextCharFormat());
    } else if (c.blockFormat().lineHeightType() == QTextBlockFormat::FixedHeight) {
        // The collapsed paragraph after a chunk frame (ChatView) gets text: normal height.
        c.setBlockFormat(QTextBlockFormat());
    }
}

QTextCharFormat MessageWriter::titleFormat() const
{
    QTextCharFormat f;
    f.setFontWeight(QFont::Bold);
    f.setForeground(m_palette.color(QPalette::Link));
    return f;
}

QTextCharFormat MessageWriter::noteFormat() const
{
    QTextCharFormat f;
    f.setForeground(m_palette.color(QPalette::PlaceholderText));
    f.setFontPointSize(m_font.pointSizeF() * 0.85);
    return f;
}

QTextCharFormat MessageWriter::linkFormat(const QString &href) const
{
    QTextCharFormat f = noteFormat();
    f.setAnchor(true);
    f.setAnchorHref(href);
    f.setForeground(m_palette.color(QPalette::Link));
    return f;
}

QTextCharFormat MessageWriter::reasoningFormat() const
{
    QTextCharFormat f;
    f.setFontItalic(true);
    f.setForeground(m_palette.color(QPalette::PlaceholderText));
    return f;
}

QTextCharFormat MessageWriter::codeFormat() const
{
    QTextCharFormat f;
    f.setFont(m_fixed);
    f.setFontFixedPitch(true);
    f.setForeground(m_palette.color(QPalette::Text));
    return f;
}

void MessageWriter::markdown(QTextCursor &c, const QString &markdown) const
{
    QTextDocument doc;
    doc.setDefaultFont(m_font);
    doc.setMarkdown(markdown, QTextDocument::MarkdownDialectGitHub);
    newBlock(c);
    c.insertFragment(QTextDocumentFragment(&doc));
}

QTextFrame *MessageWriter::codeBlock(QTextCursor &c, const QString &language, const QString &code,
                                     const QString &copyHref) const
{
    newBlock(c);
    if (!language.isEmpty())
        c.insertText(language + QStringLiteral("  "), noteFormat());
    c.insertText(QCoreApplication::translate("ChatView", "Copy"), linkFormat(copyHref));
    QTextFrameFormat ff;
    ff.setBackground(m_palette.color(QPalette::AlternateBase));
    ff.setBorder(1);
    ff.setBorderBrush(m_palette.color(QPalette::Mid));
    ff.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
    ff.setPadding(6);
    ff.setTopMargin(2);
    ff.setBottomMargin(4);
    QTextFrame *frame = c.insertFrame(ff);
    c.insertText(code, codeFormat());
    c.setPosition(frame->lastPosition());
    c.movePosition(QTextCursor::NextCharacter); // out of the frame
    return frame;
}

bool MessageWriter::colour(QTextFrame *frame, const CodeHighlighter::Result &result, Colouring &state,
                           const QDeadlineTimer &deadline) const
{
    const int first = frame->firstPosition();
    const int length = frame->lastPosition() - first; // the code as shown (CodeBlocks checked it is this code)
    QTextCursor c(frame->document());
    c.beginEditBlock(); // laid out once per slice
    const QTextCharFormat base = codeFormat();
    for (; state.run < result.runs.size(); ++state.run) {
        if (deadline.hasExpired())
            break;
        const auto &run = result.runs[state.run];
        const int end = std::min(run.start + run.length, length);
        if (run.start < state.at || end <= run.start)
            continue; // overlapping (nested) runs: the first wins
        QTextCharFormat f = base;
        if (!run.color.isEmpty())
            f.setForeground(QColor(run.color));
        if (run.bold)
            f.setFontWeight(QFont::Bold);
        if (run.italic)
            f.setFontItalic(true);
        c.setPosition(first + run.start);
        c.setPosition(first + end, QTextCursor::KeepAnchor);
        c.setCharFormat(f);
        state.at = end;
    }
    c.endEditBlock();
    return state.run >= result.runs.size();
}

void MessageWriter::plain(QTextCursor &c, const QString &text) const
{
    newBlock(c);
    c.insertText(text, QTextCharFormat());
}

void MessageWriter::appendCode(QTextCursor &c, const QString &text) const
{
    c.insertText(text, codeFormat());
}

void MessageWriter::setCopyHref(QTextFrame *code, const QString &href) const
{
    // codeBlock() wrote "language  Copy" in the paragraph that the frame's start ends; the link
    // is its one anchor.
    const QTextBlock header = code->document()->findBlock(code->firstPosition() - 1);
    for (auto it = header.begin(); !it.atEnd(); ++it) {
        const QTextFragment f = it.fragment();
        if (!f.charFormat().isAnchor())
            continue;
        QTextCursor c(code->document());
        c.setPosition(f.position());
        c.setPosition(f.position() + f.length(), QTextCursor::KeepAnchor);
        c.setCharFormat(linkFormat(href));
        return;
    }
}
