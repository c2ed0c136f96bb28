#pragma once

#include <QPlainTextEdit>

// The message box: Enter sends, Shift+Enter adds a new line.
class MessageInput : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit MessageInput(QWidget *parent = nullptr);
    QSize sizeHint() const override;

signals:
    void submitted();

protected:
    void keyPressEvent(QKeyEvent *event) override;
};
