#pragma once

// ChatView's record of one rendered message (private to chatview.cpp and its helpers).
#include "chatview.h"
#include "markdownsplit.h"

#include <QPointer>
#include <QTextCursor>
#include <QTextFrame>

// One message in the document: its frame, and how far its text has been written.
struct ChatView::Rendered {
    int key = 0;                 // stable id for links (rows move when messages are deleted)
    QPointer<QTextFrame> frame;
    MarkdownSplit split;         // content written up to split.boundary()
    int tailChars = 0;           // document characters of the open tail: at the frame's end, or
                                 // for code at the end of the last chunk (where the block stays)
    QString tailText;            // what the tail shows
    bool tailIsCode = false;
    bool tailIsNote = false;     // the tail is the answer's note ("Reading the prompt: 40%")
    QPointer<QTextFrame> tailCode;
    bool thinkingOpen = false;
    bool hasThinkingHeader = false;
    bool headerTimed = false;    // the thinking header shows its duration
    QTextCursor thinkingHeader;  // start of the header's block
    QPointer<QTextFrame> thinking;
    qsizetype reasoningShown = 0;
    QList<MarkdownSplit::Segment> pending; // completed blocks of a first write still to go in
    QPointer<QTextFrame> chunk;  // completed blocks go into frames of kChunkSegments each
    int chunkSegments = 0;
    int footerChars = 0;         // document characters of the footer at the frame's end
    bool finished = false;
};
