#pragma once

#include "chatsession.h"

#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>

// Conversations in SQLite (Qt SQL, QSQLITE) in WAL mode. A finished message is committed at
// once; a streaming answer is written again (checkpointed) as it grows, so a crash loses at
// most the text since the last checkpoint. The schema is versioned (PRAGMA user_version) and
// migrated forward on open.
class ChatStore
{
public:
    struct Conversation {
        qint64 id = 0;
        QString title;
        QString modelPath;
        QString systemPrompt;
        QDateTime updated;
        bool pinned = false;
    };
    struct Message {
        qint64 id = 0;
        qint64 conversationId = 0;
        QString role;
        QString content;
        QString reasoning;
        QString state; // "done", "streaming", "stopped", "failed"
    };

    static constexpr int kSchemaVersion = 2;

    ChatStore();
    ~ChatStore();
    ChatStore(const ChatStore &) = delete;
    ChatStore &operator=(const ChatStore &) = delete;

    // Opens (creating if needed) and migrates to `upToVersion` (tests open older schemas).
    bool open(const QString &path, int upToVersion = kSchemaVersion);
    void close();
    QString lastError() const { return m_error; }
    int schemaVersion() const;
    bool integrityOk() const;
    static QString defaultPath(); // QStandardPaths::AppDataLocation/chats.sqlite

    qint64 createConversation(const QString &title, const QString &modelPath, const QString &systemPrompt);
    bool renameConversation(qint64 id, const QString &title);
    bool deleteConversation(qint64 id);
    // Newest first; `search` matches titles and message text.
    QList<Conversation> conversations(const QString &search = {}) const;

    qint64 appendMessage(qint64 conversationId, const Message &message);
    // Rewrites a message's text and state: the streaming checkpoint, and the final write.
    bool updateMessage(qint64 messageId, const QString &content, const QString &reasoning, const QString &state);
    QList<Message> messages(qint64 conversationId) const;

private:
    bool migrate(int upToVersion);
    bool exec(const QString &sql);

    QString m_connection;
    QSqlDatabase m_db;
    QString m_error;
};
