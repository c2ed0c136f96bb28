#pragma once

#include "codehighlighter.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

class QTextFrame;

// The code blocks of the chat view, in order of appearance, and their highlighting: each is
// sent to the highlighter when written; the result comes back by ticket (off the GUI thread
// with the KF5 tool), and stale tickets (blocks gone with a rebuild) are dropped.
class CodeBlocks : public QObject
{
    Q_OBJECT
public:
    explicit CodeBlocks(QObject *parent = nullptr);
    void setDarkTheme(bool dark) { m_highlighter->setDarkTheme(dark); }
    int add(QTextFrame *frame, const QString &language, const QString &code); // returns its index
    void clear();
    int count() const { return int(m_blocks.size()); }
    QString text(int index) const; // as shown (displayedCode)
    QString code(int index) const;
    QTextFrame *frame(int index) const;
    bool highlighted(int index) const;
    void setHighlighted(int index) { m_blocks[index].highlighted = true; }

signals:
    // The highlighter's colours for a block that still exists and still holds that code.
    void ready(int index, const CodeHighlighter::Result &result);

private:
    void onHighlighted(int ticket, const CodeHighlighter::Result &result);

    struct Block {
        QPointer<QTextFrame> frame;
        QString code;
        bool highlighted = false;
    };
    CodeHighlighter *m_highlighter;
    QList<Block> m_blocks;
    QHash<int, int> m_pending; // highlighter ticket -> block
};
