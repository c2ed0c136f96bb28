#pragma once

#include "chatsession.h"
#include "chattypes.h"
#include "error.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSqlDatabase>
#include <QString>

// Conversations in SQLite (Qt SQL, QSQLITE) in WAL mode. A finished message is committed at
// once; a streaming answer is written again (checkpointed) as it grows, so a crash loses at
// most the text since the last checkpoint. The schema is versioned (PRAGMA user_version) and
// migrated forward on open. A call that can fail returns a Result: FileUnreadable or
// FileUnwritable with SQLite's reason, InvalidArgument naming a row that is not there.
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
        QString settings; // JSON: sampling and thinking used by this chat (ChatJson)
    };
    struct Version {
        qint64 id = 0;
        QString content;
        QString reasoning;
        QString state;
        QString stats;
    };
    struct Message {
        qint64 id = 0;
        qint64 conversationId = 0;
        QString role;
        QString content;
        QString reasoning;
        QString state; // "done", "streaming", "stopped", "failed"
        QString stats; // JSON (ChatJson::statsToJson), empty when none
        int version = 0;          // which of `versions` is shown
        QList<Version> versions;  // empty until an answer is regenerated; then all of them
        QList<ChatImage> images = {}; // attached to a user message, in order (stored as BLOBs)
    };

    static constexpr int kSchemaVersion = 4;
    static Message message(qint64 conversationId, const QString &role, const QString &content, const QString &state);

    ChatStore();
    ~ChatStore();
    ChatStore(const ChatStore &) = delete;
    ChatStore &operator=(const ChatStore &) = delete;

    using Done = shoehorn::Result<void>;
    using Id = shoehorn::Result<qint64>; // the new row's id

    // Opens (creating if needed) and migrates to `upToVersion` (tests open older schemas).
    Done open(const QString &path, int upToVersion = kSchemaVersion);
    void close();
    int schemaVersion() const;
    // A database of a newer schema is opened read-only (PRAGMA query_only): never migrated down.
    bool readOnly() const { return m_readOnly; }
    QString path() const { return m_db.databaseName(); } // the file open now
    // Answers left 'streaming' by a crash become 'stopped' (what was checkpointed stays): how many.
    shoehorn::Result<int> markInterruptedAnswers();
    bool integrityOk() const;
    // Whether a commit through this connection may copy the WAL into the database (SQLite's
    // automatic checkpoint, at 1000 pages: an fsync of both files inside the commit).
    Done setAutoCheckpoint(bool on);
    Done checkpoint(); // PRAGMA wal_checkpoint(PASSIVE): never waits for readers or writers
    static QString defaultPath(); // QStandardPaths::AppDataLocation/chats.sqlite

    Id createConversation(const QString &title, const QString &modelPath, const QString &systemPrompt);
    Done renameConversation(qint64 id, const QString &title);
    Done deleteConversation(qint64 id);
    Done setConversationModel(qint64 id, const QString &modelPath);
    Done setConversationSettings(qint64 id, const QString &systemPrompt, const QString &settingsJson);
    Conversation conversation(qint64 id) const;
    // Newest first; `search` matches titles and message text.
    QList<Conversation> conversations(const QString &search = {}) const;

    Id appendMessage(qint64 conversationId, const Message &message);
    // Rewrites a message's text and state: the streaming checkpoint, and the final write.
    Done updateMessage(qint64 messageId, const QString &content, const QString &reasoning, const QString &state,
                       const QString &stats = {});
    Done deleteMessage(qint64 messageId);
    // Deletes every message of the conversation stored after `messageId` (edit and resend).
    Done deleteMessagesAfter(qint64 conversationId, qint64 messageId);
    // With `pictureBytes` false a message's images carry their type only (data empty): a photo's
    // bytes take tens of ms to read, pictures() reads them where that does not matter.
    QList<Message> messages(qint64 conversationId, bool pictureBytes = true) const;
    QList<ChatImage> images(qint64 messageId, bool withBytes = true) const;
    // Every picture of a conversation, by message id, in order.
    shoehorn::Result<QHash<qint64, QList<ChatImage>>> pictures(qint64 conversationId) const;

    // Versions of a regenerated answer. The message row always holds the version shown.
    Id appendVersion(qint64 messageId, const Version &version);
    Done updateVersion(qint64 versionId, const QString &content, const QString &reasoning, const QString &state,
                       const QString &stats = {});
    Done setShownVersion(qint64 messageId, int index);
    QList<Version> versions(qint64 messageId) const;
    // Several writes as one commit (regenerate, edit): all or nothing after a crash.
    Done transaction();
    Done commit();
    Done rollback();

private:
    Done migrate(int upToVersion);
    Done exec(const QString &sql);
    void abandonSavepoint(); // appendMessage's, after a failure

    QString m_connection;
    QSqlDatabase m_db;
    bool m_readOnly = false;
};
