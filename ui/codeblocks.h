#pragma once

#include "codehighlighter.h"
#include "messagewriter.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>
#include <optional>

class QTextFrame;

// The code blocks of the chat view, in order of appearance, and their highlighting: each is
// sent to the highlighter when written; the result comes back by ticket (off the GUI thread
// with the KF5 tool), and stale tickets (blocks gone with a rebuild) are dropped. A long block's
// text and its colours go in a slice of the event loop at a time: Qt lays text out as it is
// inserted (a 400-line block took 24 ms to write, 2000 lines 82 ms; its colours 31 ms).
class CodeBlocks : public QObject
{
    Q_OBJECT
public:
    // Colours `frame` from where `state` stands until the deadline; whether it is done
    // (MessageWriter::colour, with what the view does around it).
    using Colour = std::function<bool(QTextFrame *frame, const CodeHighlighter::Result &result,
                                      MessageWriter::Colouring &state, const QDeadlineTimer &deadline)>;
    // Appends `text` to the end of a code block's frame (MessageWriter::appendCode).
    using Append = std::function<void(QTextFrame *frame, const QString &text)>;
    // Each slice's runs take this long; laying the frame out again after them about as long.
    static constexpr int kSliceMs = 2;
    // Text written per slice: about 2.5 ms of Qt's layout (29 KB of code took 18 ms).
    static constexpr int kChunkChars = 4000;

    CodeBlocks(Colour colour, Append append, QObject *parent = nullptr);
    void setDarkTheme(bool dark) { m_highlighter->setDarkTheme(dark); }
    // How much of `shown` (the code as shown) to write at once: all of a short block, else its
    // lines up to about kChunkChars; add() is given the rest.
    static int headLength(const QString &shown);
    // A block written into `frame`; `rest` (what headLength left) is appended slice by slice, and
    // its colours wait for it. Returns its index.
    int add(QTextFrame *frame, const QString &language, const QString &code, const QString &rest = {});
    void clear();
    int count() const { return int(m_blocks.size()); }
    QString text(int index) const; // as shown (displayedCode)
    QString code(int index) const;
    QTextFrame *frame(int index) const;
    bool highlighted(int index) const;

signals:
    // A block that still exists and still holds that code has all its colours.
    void coloured(int index);

private:
    void onHighlighted(int ticket, const CodeHighlighter::Result &result);
    void nextSlice();
    void appendSlice(const QDeadlineTimer &deadline);
    void colourSlice(const QDeadlineTimer &deadline);

    struct Block {
        QPointer<QTextFrame> frame;
        QString code;
        bool highlighted = false;
        QString rest;                                   // still to be written
        std::optional<CodeHighlighter::Result> waiting; // colours that wait for the rest
    };
    struct Colouring {
        int index = 0;
        CodeHighlighter::Result result;
        MessageWriter::Colouring state;
    };
    Colour m_colour;
    Append m_append;
    CodeHighlighter *m_highlighter;
    QList<QPair<int, QString>> m_toRequest; // blocks (and their language) to send for highlighting
    QList<int> m_appending;       // blocks whose text is still being written, oldest first
    QList<Colouring> m_colouring; // results being put in, oldest first
    QTimer m_nextSlice;
    QList<Block> m_blocks;
    QHash<int, int> m_pending; // highlighter ticket -> block
};
