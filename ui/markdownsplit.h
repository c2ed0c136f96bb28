#pragma once

#include <QList>
#include <QString>

// Cuts a growing Markdown answer into blocks that can no longer change (paragraphs, lists,
// tables, fenced code), so a streaming view lays each out once and shows only the open tail
// as plain text. Blocks end at a blank line followed by unindented text, or at a closing fence.
class MarkdownSplit
{
public:
    struct Segment {
        enum Kind { Markdown, Code };
        Kind kind = Markdown;
        QString text;
        QString language; // Code: the fence's info word
        bool closed = true;
    };

    // Feeds the whole text again (only what follows the last boundary is scanned). With
    // `final`, everything left becomes blocks. Returns the blocks completed by this call.
    QList<Segment> feed(const QString &text, bool final = false);

    qsizetype boundary() const { return m_boundary; } // text before this is in returned blocks
    bool inCode() const { return m_inFence; }
    QString codeLanguage() const { return m_language; }
    qsizetype codeStart() const { return m_codeStart; } // while inCode(): where the code begins

private:
    qsizetype m_boundary = 0;   // start of the open part
    qsizetype m_scanned = 0;    // start of the first line not looked at yet
    qsizetype m_blankAt = -1;   // a blank line in the open Markdown part: end of a candidate block
    bool m_inFence = false;
    QChar m_fenceChar;
    int m_fenceLength = 0;
    QString m_language;
    qsizetype m_codeStart = 0;
};
