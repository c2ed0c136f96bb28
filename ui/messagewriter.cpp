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

void MessageWriter::applyHighlight(QTextFrame *frame, const CodeHighlighter::Result &result, const QString &code) const
{
    const QString text = displayedCode(code);
    QTextCursor c(frame->document());
    c.setPosition(frame->firstPosition());
    c.setPosition(frame->lastPosition(), QTextCursor::KeepAnchor);
    c.beginEditBlock();
    c.removeSelectedText();
    const QTextCharFormat base = codeFormat();
    int at = 0;
    auto plainUpTo = [&](int end) {
        end = std::min(end, int(text.size()));
        if (end > at)
            c.insertText(text.mid(at, end - at), base);
        at = std::max(at, end);
    };
    for (const auto &run : result.runs) {
        if (run.start < at)
            continue; // overlapping (nested) runs: the first wins
        plainUpTo(run.start);
        const int end = std::min(run.start + run.length, int(text.size()));
        if (end <= at)
            continue;
        QTextCharFormat f = base;
        if (!run.color.isEmpty())
            f.setForeground(QColor(run.color));
        if (run.bold)
            f.setFontWeight(QFont::Bold);
        if (run.italic)
            f.setFontItalic(true);
        c.insertText(text.mid(at, end - at), f);
        at = end;
    }
    plainUpTo(int(text.size()));
    c.endEditBlock();
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
