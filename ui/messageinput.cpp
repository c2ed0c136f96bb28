#include "messageinput.h"

#include <QKeyEvent>

MessageInput::MessageInput(QWidget *parent) : QPlainTextEdit(parent)
{
    setTabChangesFocus(true);
    setPlaceholderText(tr("Type a message. Enter sends, Shift+Enter adds a line."));
}

QSize MessageInput::sizeHint() const
{
    const int lines = 3;
    return {QPlainTextEdit::sizeHint().width(), fontMetrics().lineSpacing() * lines + 16};
}

void MessageInput::keyPressEvent(QKeyEvent *event)
{
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && !(event->modifiers() & Qt::ShiftModifier)) {
        emit submitted();
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}
