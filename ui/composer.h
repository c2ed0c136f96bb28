#pragma once

#include <QWidget>

class AttachmentStrip;
class ChatController;
class LoadedModel;
class MessageInput;
class QPushButton;
class VisionController;
struct ChatImage;

// Where the user writes: the message box, the images attached to it, Send (Stop while an answer
// is written) and the strip that says a question is being edited. Sends through the chat;
// stopping an answer and messages for the status bar are the window's.
class Composer : public QWidget
{
    Q_OBJECT
public:
    Composer(ChatController *chat, LoadedModel *model, VisionController *vision, QWidget *parent = nullptr);

    MessageInput *input() const { return m_input; }
    AttachmentStrip *attachments() const { return m_attachments; }
    // The question being edited (its row in the chat), -1 when none.
    int editingRow() const { return m_editingRow; }

public slots:
    // Puts the question at `row` in the box; sending answers it again.
    void startEdit(int row);
    void cancelEdit();
    // Send, or Stop while an answer is written (the button).
    void sendOrStop();

signals:
    void stopRequested();
    void message(const QString &text, int milliseconds);
    void imageRequested(const ChatImage &image);

private:
    void buildEditStrip();
    void onStateChanged();

    ChatController *m_chat;
    LoadedModel *m_model;
    VisionController *m_vision;
    QWidget *m_editStrip = nullptr;
    AttachmentStrip *m_attachments = nullptr;
    MessageInput *m_input = nullptr;
    QPushButton *m_sendButton = nullptr;
    int m_editingRow = -1;
};
