#include "chatstore.h"
#include "chatstore_p.h"

#include <QDir>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>
#include <QVariant>

using namespace chatstore_detail;

ChatStore::Message ChatStore::message(qint64 conversationId, const QString &role, const QString &content,
                                     const QString &state)
{
    Message m;
    m.conversationId = conversationId;
    m.role = role;
    m.content = content;
    m.state = state;
    return m;
}

ChatStore::ChatStore() : m_connection(QStringLiteral("chatstore-") + QUuid::createUuid().toString()) {}

ChatStore::~ChatStore()
{
    close();
}

QString ChatStore::defaultPath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(dir);
    return dir + QStringLiteral("/chats.sqlite");
}

ChatStore::Id ChatStore::createConversation(const QString &title, const QString &modelPath, const QString &systemPrompt)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO conversations(title, model_path, system_prompt, created, updated) "
                             "VALUES(?, ?, ?, ?, ?)"));
    const QString t = now();
    for (const QVariant &v : {QVariant(nn(title)), QVariant(nn(modelPath)), QVariant(nn(systemPrompt)), QVariant(t), QVariant(t)})
        q.addBindValue(v);
    if (!q.exec())
        return unwritable(q.lastError());
    return q.lastInsertId().toLongLong();
}

ChatStore::Done ChatStore::renameConversation(qint64 id, const QString &title)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET title = ?, updated = ? WHERE id = ?"));
    q.addBindValue(nn(title));
    q.addBindValue(now());
    q.addBindValue(id);
    return oneRow(q, "conversation", id);
}

ChatStore::Done ChatStore::deleteConversation(qint64 id)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM conversations WHERE id = ?"));
    q.addBindValue(id);
    return oneRow(q, "conversation", id);
}

QList<ChatStore::Conversation> ChatStore::conversations(const QString &search) const
{
    QSqlQuery q(m_db);
    QString sql =
        QStringLiteral("SELECT id, title, model_path, system_prompt, updated, pinned, settings FROM conversations c");
    if (!search.isEmpty())
        sql += QStringLiteral(" WHERE c.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM messages m"
                              " WHERE m.conversation_id = c.id AND m.content LIKE ? ESCAPE '\\')");
    sql += QStringLiteral(" ORDER BY pinned DESC, updated DESC, id DESC");
    q.prepare(sql);
    if (!search.isEmpty()) {
        // The text as typed: "50%" or "snake_case" are not patterns.
        QString literal = search;
        literal.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
            .replace(QLatin1Char('%'), QStringLiteral("\\%"))
            .replace(QLatin1Char('_'), QStringLiteral("\\_"));
        const QString like = QLatin1Char('%') + literal + QLatin1Char('%');
        q.addBindValue(like);
        q.addBindValue(like);
    }
    QList<Conversation> out;
    if (!q.exec())
        return out;
    while (q.next())
        out.append({q.value(0).toLongLong(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
                    QDateTime::fromString(q.value(4).toString(), Qt::ISODateWithMs), q.value(5).toBool(),
                    q.value(6).toString()});
    return out;
}

ChatStore::Conversation ChatStore::conversation(qint64 id) const
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT id, title, model_path, system_prompt, updated, pinned, settings "
                             "FROM conversations WHERE id = ?"));
    q.addBindValue(id);
    if (!q.exec() || !q.next())
        return {};
    return {q.value(0).toLongLong(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
            QDateTime::fromString(q.value(4).toString(), Qt::ISODateWithMs), q.value(5).toBool(),
            q.value(6).toString()};
}

ChatStore::Done ChatStore::setConversationModel(qint64 id, const QString &modelPath)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET model_path = ? WHERE id = ?"));
    q.addBindValue(nn(modelPath));
    q.addBindValue(id);
    return oneRow(q, "conversation", id);
}

ChatStore::Done ChatStore::setConversationSettings(qint64 id, const QString &systemPrompt, const QString &settingsJson)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE conversations SET system_prompt = ?, settings = ? WHERE id = ?"));
    q.addBindValue(nn(systemPrompt));
    q.addBindValue(nn(settingsJson));
    q.addBindValue(id);
    return oneRow(q, "conversation", id);
}

ChatStore::Id ChatStore::appendMessage(qint64 conversationId, const Message &m)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO messages(conversation_id, role, content, reasoning, state, created) "
                             "VALUES(?, ?, ?, ?, ?, ?)"));
    q.addBindValue(conversationId);
    q.addBindValue(nn(m.role));
    q.addBindValue(nn(m.content));
    q.addBindValue(nn(m.reasoning));
    q.addBindValue(m.state.isEmpty() ? QStringLiteral("done") : m.state);
    q.addBindValue(now());
    // The message and its images are one write: a savepoint works inside a transaction too.
    const bool withImages = !m.images.isEmpty();
    if (withImages)
        if (Done d = exec(QStringLiteral("SAVEPOINT message_with_images")); !d)
            return d.error();
    if (!q.exec()) {
        const Error e = unwritable(q.lastError());
        if (withImages)
            abandonSavepoint();
        return e;
    }
    const qint64 id = q.lastInsertId().toLongLong();
    if (withImages) {
        for (int i = 0; i < m.images.size(); ++i) {
            QSqlQuery img(m_db);
            img.prepare(QStringLiteral("INSERT INTO message_images(message_id, position, mime, data) VALUES(?, ?, ?, ?)"));
            img.addBindValue(id);
            img.addBindValue(i);
            img.addBindValue(nn(m.images[i].mime));
            img.addBindValue(m.images[i].data.isNull() ? QByteArray("") : m.images[i].data);
            if (!img.exec()) {
                const Error e = unwritable(img.lastError());
                abandonSavepoint();
                return e;
            }
        }
        if (Done d = exec(QStringLiteral("RELEASE message_with_images")); !d) {
            abandonSavepoint(); // the release commits when no transaction is open (a full disk)
            return d.error();
        }
    }
    QSqlQuery touch(m_db);
    touch.prepare(QStringLiteral("UPDATE conversations SET updated = ? WHERE id = ?"));
    touch.addBindValue(now());
    touch.addBindValue(conversationId);
    touch.exec();
    return id;
}

void ChatStore::abandonSavepoint()
{
    // Undone and ended, so that no transaction stays open; the write's own failure is the one
    // reported, not these.
    (void) exec(QStringLiteral("ROLLBACK TO message_with_images"));
    (void) exec(QStringLiteral("RELEASE message_with_images"));
}

ChatStore::Done ChatStore::updateMessage(qint64 id, const QString &content, const QString &reasoning,
                                         const QString &state, const QString &stats)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE messages SET content = ?, reasoning = ?, state = ?, stats = ? WHERE id = ?"));
    q.addBindValue(nn(content));
    q.addBindValue(nn(reasoning));
    q.addBindValue(nn(state));
    q.addBindValue(nn(stats));
    q.addBindValue(id);
    return oneRow(q, "message", id);
}

QList<ChatStore::Message> ChatStore::messages(qint64 conversationId, bool pictureBytes) const
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT id, role, content, reasoning, state, stats, version FROM messages "
                             "WHERE conversation_id = ? ORDER BY id"));
    q.addBindValue(conversationId);
    QList<Message> out;
    if (!q.exec())
        return out;
    while (q.next())
        out.append({q.value(0).toLongLong(), conversationId, q.value(1).toString(), q.value(2).toString(),
                    q.value(3).toString(), q.value(4).toString(), q.value(5).toString(), q.value(6).toInt(), {}});
    for (Message &m : out) {
        m.versions = versions(m.id);
        m.images = images(m.id, pictureBytes);
    }
    return out;
}

QList<ChatImage> ChatStore::images(qint64 messageId, bool withBytes) const
{
    QSqlQuery q(m_db);
    q.prepare(withBytes ? QStringLiteral("SELECT mime, data FROM message_images WHERE message_id = ? ORDER BY position")
                        : QStringLiteral("SELECT mime FROM message_images WHERE message_id = ? ORDER BY position"));
    q.addBindValue(messageId);
    QList<ChatImage> out;
    if (q.exec())
        while (q.next())
            out.append({withBytes ? q.value(1).toByteArray() : QByteArray(), q.value(0).toString()});
    return out;
}

shoehorn::Result<QHash<qint64, QList<ChatImage>>> ChatStore::pictures(qint64 conversationId) const
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT i.message_id, i.mime, i.data FROM message_images i "
                             "JOIN messages m ON m.id = i.message_id WHERE m.conversation_id = ? "
                             "ORDER BY i.message_id, i.position"));
    q.addBindValue(conversationId);
    if (!q.exec())
        return Error{ErrorCode::FileUnreadable, q.lastError().text().toStdString()};
    QHash<qint64, QList<ChatImage>> out;
    while (q.next())
        out[q.value(0).toLongLong()].append({q.value(2).toByteArray(), q.value(1).toString()});
    return out;
}

ChatStore::Done ChatStore::deleteMessage(qint64 messageId)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM messages WHERE id = ?"));
    q.addBindValue(messageId);
    return oneRow(q, "message", messageId);
}

ChatStore::Done ChatStore::deleteMessagesAfter(qint64 conversationId, qint64 messageId)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("DELETE FROM messages WHERE conversation_id = ? AND id > ?"));
    q.addBindValue(conversationId);
    q.addBindValue(messageId);
    if (!q.exec())
        return unwritable(q.lastError());
    return {};
}

ChatStore::Id ChatStore::appendVersion(qint64 messageId, const Version &v)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("INSERT INTO message_versions(message_id, content, reasoning, state, stats, created) "
                             "VALUES(?, ?, ?, ?, ?, ?)"));
    q.addBindValue(messageId);
    q.addBindValue(nn(v.content));
    q.addBindValue(nn(v.reasoning));
    q.addBindValue(v.state.isEmpty() ? QStringLiteral("done") : v.state);
    q.addBindValue(nn(v.stats));
    q.addBindValue(now());
    if (!q.exec())
        return unwritable(q.lastError());
    return q.lastInsertId().toLongLong();
}

ChatStore::Done ChatStore::updateVersion(qint64 versionId, const QString &content, const QString &reasoning,
                                         const QString &state, const QString &stats)
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("UPDATE message_versions SET content = ?, reasoning = ?, state = ?, stats = ? WHERE id = ?"));
    q.addBindValue(nn(content));
    q.addBindValue(nn(reasoning));
    q.addBindValue(nn(state));
    q.addBindValue(nn(stats));
    q.addBindValue(versionId);
    return oneRow(q, "version", versionId);
}

ChatStore::Done ChatStore::setShownVersion(qint64 messageId, int index)
{
    const auto all = versions(messageId);
    if (index < 0 || index >= all.size())
        return Error{ErrorCode::InvalidArgument, "message " + std::to_string(messageId) + " has no version " +
                                                     std::to_string(index) + " (" + std::to_string(all.size()) +
                                                     " stored)"};
    const Version &v = all.at(index);
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral(
        "UPDATE messages SET content = ?, reasoning = ?, state = ?, stats = ?, version = ? WHERE id = ?"));
    q.addBindValue(nn(v.content));
    q.addBindValue(nn(v.reasoning));
    q.addBindValue(nn(v.state));
    q.addBindValue(nn(v.stats));
    q.addBindValue(index);
    q.addBindValue(messageId);
    return oneRow(q, "message", messageId);
}

QList<ChatStore::Version> ChatStore::versions(qint64 messageId) const
{
    QSqlQuery q(m_db);
    q.prepare(QStringLiteral("SELECT id, content, reasoning, state, stats FROM message_versions "
                             "WHERE message_id = ? ORDER BY id"));
    q.addBindValue(messageId);
    QList<Version> out;
    if (!q.exec())
        return out;
    while (q.next())
        out.append({q.value(0).toLongLong(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
                    q.value(4).toString()});
    return out;
}

shoehorn::Result<int> ChatStore::markInterruptedAnswers()
{
    if (m_readOnly)
        return 0;
    int changed = 0;
    for (const char *table : {"messages", "message_versions"}) {
        QSqlQuery q(m_db);
        if (!q.exec(QStringLiteral("UPDATE %1 SET state = 'stopped' WHERE state = 'streaming'").arg(QLatin1String(table))))
            return unwritable(q.lastError());
        changed += q.numRowsAffected();
    }
    return changed;
}
