#pragma once

#include "codehighlighter.h"
#include "messagewriter.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

class QTextFrame;

// The code blocks of the chat view, in order of appearance, and their highlighting: each is
// sent to the highlighter when written; the result comes back by ticket (off the GUI thread
// with the KF5 tool), and stale tickets (blocks gone with a rebuild) are dropped. The colours
// go in a slice of the event loop at a time: a 400-line block's in one go held it for 31 ms.
class CodeBlocks : public QObject
{
    Q_OBJECT
public:
    // Colours `frame` from where `state` stands until the deadline; whether it is done
    // (MessageWriter::colour, with what the view does around it).
    using Colour = std::function<bool(QTextFrame *frame, const CodeHighlighter::Result &result,
                                      MessageWriter::Colouring &state, const QDeadlineTimer &deadline)>;
    // Each slice's runs take this long; laying the frame out again after them about as long.
    static constexpr int kSliceMs = 2;

    CodeBlocks(Colour colour, QObject *parent = nullptr);
    void setDarkTheme(bool dark) { m_highlighter->setDarkTheme(dark); }
    int add(QTextFrame *frame, const QString &language, const QString &code); // returns its index
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
    void colourSlice();

    struct Block {
        QPointer<QTextFrame> frame;
        QString code;
        bool highlighted = false;
    };
    struct Colouring {
        int index = 0;
        CodeHighlighter::Result result;
        MessageWriter::Colouring state;
    };
    Colour m_colour;
    CodeHighlighter *m_highlighter;
    QList<Colouring> m_colouring; // results being put in, oldest first
    QTimer m_nextSlice;
    QList<Block> m_blocks;
    QHash<int, int> m_pending; // highlighter ticket -> block
};
