// ChatStore's file: opening it, its schema and migrations, checks, checkpoints and transactions.
#include "chatstore.h"
#include "chatstore_p.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QVariant>

#include <algorithm>

using namespace chatstore_detail;

namespace {
// Migration N takes a database at version N-1 to version N. Never edit one that shipped:
// add the next.
const char *const kMigrations[] = {
    // 1: conversations and their messages
    "CREATE TABLE conversations ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, model_path TEXT NOT NULL DEFAULT '',"
    " system_prompt TEXT NOT NULL DEFAULT '', created TEXT NOT NULL, updated TEXT NOT NULL);"
    "CREATE TABLE messages ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,"
    " role TEXT NOT NULL, content TEXT NOT NULL DEFAULT '', reasoning TEXT NOT NULL DEFAULT '',"
    " state TEXT NOT NULL DEFAULT 'done', created TEXT NOT NULL);"
    "CREATE INDEX messages_by_conversation ON messages(conversation_id, id);",
    // 2: pinned conversations; earlier versions of regenerated answers
    "ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;"
    "CREATE TABLE message_versions ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
    " content TEXT NOT NULL, reasoning TEXT NOT NULL DEFAULT '', created TEXT NOT NULL);",
    // 3: answer statistics, the version shown, per-chat settings
    "ALTER TABLE messages ADD COLUMN stats TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE messages ADD COLUMN version INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE message_versions ADD COLUMN state TEXT NOT NULL DEFAULT 'done';"
    "ALTER TABLE message_versions ADD COLUMN stats TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE conversations ADD COLUMN settings TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX versions_by_message ON message_versions(message_id, id);",
    // 4: images attached to messages, as the files' bytes (a path could move or vanish)
    "CREATE TABLE message_images ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,"
    " position INTEGER NOT NULL, mime TEXT NOT NULL DEFAULT '', data BLOB NOT NULL);"
    "CREATE INDEX images_by_message ON message_images(message_id, position);",
};
} // namespace

ChatStore::Done ChatStore::exec(const QString &sql)
{
    QSqlQuery q(m_db);
    if (!q.exec(sql))
        return unwritable(q.lastError());
    return {};
}

ChatStore::Done ChatStore::open(const QString &path, int upToVersion)
{
    close();
    m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    m_db.setDatabaseName(path);
    if (!m_db.open())
        return Error{ErrorCode::FileUnreadable, m_db.lastError().text().toStdString()};
    m_readOnly = false;
    // Not a database at all (or unreadable): say so before anything writes to it.
    int version = 0;
    {
        QSqlQuery probe(m_db);
        if (!probe.exec(QStringLiteral("PRAGMA user_version")) || !probe.next())
            return Error{ErrorCode::FileUnreadable, probe.lastError().text().toStdString()};
        version = probe.value(0).toInt();
    } // an open statement would keep journal_mode from changing
    if (version > kSchemaVersion) {
        m_readOnly = true;
        return exec(QStringLiteral("PRAGMA query_only=ON"));
    }
    // WAL: a commit survives the process being killed; NORMAL sync is enough for that.
    // The lock's timeout first: another connection (a pool job's) may be writing.
    for (const char *pragma : {"PRAGMA busy_timeout=3000", "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
                               "PRAGMA foreign_keys=ON"})
        if (Done d = exec(QLatin1String(pragma)); !d)
            return d;
    return migrate(upToVersion);
}

void ChatStore::close()
{
    if (m_db.isValid()) {
        m_db.close();
        m_db = QSqlDatabase();
        QSqlDatabase::removeDatabase(m_connection);
    }
}

int ChatStore::schemaVersion() const
{
    QSqlQuery q(m_db);
    return q.exec(QStringLiteral("PRAGMA user_version")) && q.next() ? q.value(0).toInt() : -1;
}

bool ChatStore::integrityOk() const
{
    QSqlQuery q(m_db);
    return q.exec(QStringLiteral("PRAGMA integrity_check")) && q.next() && q.value(0).toString() == QLatin1String("ok");
}

ChatStore::Done ChatStore::setAutoCheckpoint(bool on)
{
    return exec(on ? QStringLiteral("PRAGMA wal_autocheckpoint=1000") : QStringLiteral("PRAGMA wal_autocheckpoint=0"));
}

ChatStore::Done ChatStore::checkpoint()
{
    return exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
}

ChatStore::Done ChatStore::migrate(int upToVersion)
{
    const int target = std::min(upToVersion, kSchemaVersion);
    for (int v = schemaVersion(); v < target; ++v) {
        // One transaction per step: a crash mid-migration leaves the previous version intact.
        if (!m_db.transaction())
            return unwritable(m_db.lastError());
        const QStringList statements = QString::fromLatin1(kMigrations[v]).split(QLatin1Char(';'), Qt::SkipEmptyParts);
        for (const QString &sql : statements) {
            if (Done d = exec(sql); !d) {
                m_db.rollback();
                return d;
            }
        }
        Done d = exec(QStringLiteral("PRAGMA user_version=%1").arg(v + 1));
        if (d && !m_db.commit())
            d = unwritable(m_db.lastError());
        if (!d) {
            m_db.rollback();
            return d;
        }
    }
    return {};
}

ChatStore::Done ChatStore::transaction()
{
    if (m_db.transaction())
        return {};
    return unwritable(m_db.lastError());
}

ChatStore::Done ChatStore::commit()
{
    if (m_db.commit())
        return {};
    return unwritable(m_db.lastError());
}

ChatStore::Done ChatStore::rollback()
{
    if (m_db.rollback())
        return {};
    return unwritable(m_db.lastError());
}
