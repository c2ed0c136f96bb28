#pragma once

#include "chatmodel.h"
#include "codeblocks.h"
#include "markdownsplit.h"

#include <QElapsedTimer>
#include <QTextBrowser>
#include <QTimer>
#include <QTextCursor>

#include <functional>
#include <memory>


class ChatThumbnails;
class MessageWriter;
class QTextFrame;

// Shows the conversation as Markdown, one text frame per message. Streaming appends only the
// new characters; a paragraph or code block is laid out once, when it is complete, and code is
// highlighted off the GUI thread (CodeHighlighter). Links in messages open in the browser;
// the links under each message (copy, edit, regenerate, versions, delete) become signals.
class ChatView : public QTextBrowser
{
    Q_OBJECT
public:
    explicit ChatView(QWidget *parent = nullptr);
    ~ChatView() override;
    void setChatModel(ChatModel *model);
    // Every message of the model is in the document. A chat opened or laid out again is written
    // a slice of the event loop's time at a time (about 3 ms a message: 150 took 414 ms at once;
    // a long message goes in a few blocks at a time), newest last, the window answering in between.
    bool isComplete() const;

    using UrlOpener = std::function<void(const QUrl &)>;
    void setUrlOpener(UrlOpener opener) { m_openUrl = std::move(opener); } // seam for tests
    // What the links do, callable from tests as a person would click them.
    void activate(const QString &href);
    QString actionHref(int row, const QString &action) const;

    bool isThinkingExpanded(int row) const;
    void setThinkingExpanded(int row, bool expanded);
    int codeBlockCount() const;
    QString codeBlockText(int index) const;     // by order of appearance
    bool codeBlockHighlighted(int index) const;
    QTextFrame *codeBlockFrame(int index) const;

signals:
    void editRequested(int row);
    void regenerateRequested(int row);
    void deleteRequested(int row);
    void versionRequested(int row, int version);
    void codeHighlighted(int index);
    void imageRequested(const ChatImage &image); // a thumbnail in a message was clicked
    void copied(const QString &what);             // a Copy link put this on the clipboard, in words
    void thumbnailShown(const QString &name);     // a picture's thumbnail replaced its tile (tests)

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Rendered;
    void rebuild();
    void insertRow(int row);
    void openSlice();      // starts a slice of kSliceMs unless one is open this turn
    void catchUp();        // writes what is not yet in the document (a row's rest, new rows) for up to kSliceMs
    void resumeRow(int row); // the rest of a row whose first write used up its slice
    void appendRow(int row);
    void renderRow(int row);
    // renderRow in one edit for a message on screen; one whose first write has not ended is
    // written again from the start in slices
    void relayoutRow(int row);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);
    void onRowsRemoved(const QModelIndex &parent, int first, int last);
    void stream(int row);
    void streamReasoning(int row);
    void removeTail(Rendered &r);
    bool keepStreamedCode(int row, const MarkdownSplit::Segment &s);
    void writeSegments(int row, const QList<MarkdownSplit::Segment> &segments);
    QTextCursor chunkEnd(Rendered &r);
    void writeTail(int row);
    void writeThinkingHeader(int row, QTextCursor &c);
    void updateThinkingHeader(int row);
    void writeFooter(int row);
    void writeImages(int row, QTextCursor &c);
    void removeFooter(Rendered &r);
    int rowOfKey(int key) const;
    QString roleTitle(ChatModel::Author author) const;
    QTextCursor frameEnd(const Rendered &r) const;
    void followIfAtBottom(bool follow);

    ChatModel *m_model = nullptr;
    std::unique_ptr<MessageWriter> m_writer;
    CodeBlocks *m_code;
    QList<Rendered> m_rendered;
    int m_nextKey = 1;
    UrlOpener m_openUrl;
    ChatThumbnails *m_thumbnails = nullptr;
    static constexpr int kSliceMs = 4;
    QTimer m_nextSlice;     // the rest after the event loop's other work
    QElapsedTimer m_slice;  // how long this turn of the event loop has been writing rows
    bool m_sliceOpen = false;
    bool m_bottomWhenShown = false; // followed to the bottom while hidden: show the bottom when laid out
    bool m_firstWrite = false; // writing a message not on screen before (appendRow, resumeRow)
};
