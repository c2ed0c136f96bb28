#pragma once

#include <QDockWidget>

#include <functional>

class ChatController;
class ConversationList;
class ConversationList;
class QLineEdit;
class QListView;

// The stored conversations: search by title and text, open, new, rename, delete.
class ChatList : public QDockWidget
{
    Q_OBJECT
public:
    // `conversations` may be null (the history could not be opened).
    ChatList(ChatController *controller, ConversationList *conversations, QWidget *parent = nullptr);
    ConversationList *model() const { return m_model; }
    QListView *view() const { return m_view; }
    // Test seam: how a new title is asked for (calls back with it, only when accepted; does not block).
    using TitleAsker = std::function<void(const QString &current, std::function<void(const QString &title)> done)>;
    void setTitleAsker(TitleAsker asker) { m_askTitle = std::move(asker); }
    // Test seam: whether a chat may be deleted (calls back with the answer; does not block).
    using DeleteAsker = std::function<void(const QString &title, std::function<void(bool yes)> done)>;
    void setDeleteAsker(DeleteAsker asker) { m_askDelete = std::move(asker); }

signals:
    // A stored chat was opened; it was held with this model.
    void conversationOpened(const QString &modelPath);

public slots:
    void renameCurrent();
    void deleteCurrent();
    // Shows a stored chat. While an answer streams it is stopped first (and kept, marked
    // stopped); the chat opens when it has ended.
    void openChat(qint64 id);

private:
    qint64 currentId() const; // the row highlighted (the chat shown, or one the arrow keys moved to)
    void renameChat(qint64 id);
    void deleteChat(qint64 id);
    QString titleOf(qint64 id) const;
    void selectOpenChat(); // the row highlighted is the chat shown, none for a new one
    void buildActions(QWidget *body);
    qint64 m_pendingOpen = 0;
    ChatController *m_controller;
    ConversationList *m_model = nullptr;
    QLineEdit *m_search;
    QListView *m_view;
    TitleAsker m_askTitle;
    DeleteAsker m_askDelete;
};
