#pragma once

#include "codehighlighter.h"
#include "markdownsplit.h"

#include <QDeadlineTimer>
#include <QPalette>
#include <QTextCharFormat>
#include <QTextCursor>

class QTextFrame;

// Writes the parts of a chat message into a QTextDocument at a cursor: Markdown blocks,
// code blocks in their own frame (with a Copy link), plain streaming text, small notes.
// Stateless apart from the palette and fonts it styles with.
class MessageWriter
{
public:
    explicit MessageWriter(const QPalette &palette, const QFont &font);

    void markdown(QTextCursor &c, const QString &markdown) const;
    // `code` as shown (see displayedCode). Returns the frame holding it; `copyHref` is the
    // Copy link's target.
    QTextFrame *codeBlock(QTextCursor &c, const QString &language, const QString &code, const QString &copyHref) const;
    // Where colouring a code frame stands: the next run, and where the last coloured one ended.
    struct Colouring {
        int run = 0;
        int at = 0;
    };
    // Colours a code frame's text with the highlighter's runs for it, from where `state` stands
    // until `deadline` passes; whether all runs are done. The text is left as it is.
    bool colour(QTextFrame *frame, const CodeHighlighter::Result &result, Colouring &state,
                const QDeadlineTimer &deadline) const;
    void plain(QTextCursor &c, const QString &text) const; // the open tail of a streaming answer
    void appendCode(QTextCursor &c, const QString &text) const;
    // Points the Copy link above a code frame written by codeBlock() at `href`.
    void setCopyHref(QTextFrame *code, const QString &href) const;
    QTextCharFormat titleFormat() const;
    QTextCharFormat noteFormat() const;
    QTextCharFormat linkFormat(const QString &href) const;
    QTextCharFormat reasoningFormat() const;
    QTextCharFormat codeFormat() const;
    // Starts a new paragraph unless the cursor is at the start of an empty one.
    static void newBlock(QTextCursor &c);

private:
    QPalette m_palette;
    QFont m_font;
    QFont m_fixed;
};

// Code shown in a code block: the fence's text without its last newline.
QString displayedCode(const QString &code);
