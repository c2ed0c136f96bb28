// Chat storage: schema migrations, conversations and messages, and 50 kills mid-write.
#include "chatstore.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

namespace {
// A new row's id, 0 (with SQLite's reason printed) when the write failed.
qint64 idOf(const ChatStore::Id &r)
{
    if (!r)
        qWarning("write failed: %s", r.error().detail.c_str());
    return r ? *r : 0;
}

const char *why(const ChatStore::Done &d)
{
    return d ? "" : d.error().detail.c_str();
}
} // namespace

class TestChatStore : public QObject
{
    Q_OBJECT
private slots:
    void migratesFromEachOlderVersion_data();
    void migratesFromEachOlderVersion();
    void conversationsAndMessages();
    void versionsAndSettings();
    void imagesStoredWithTheMessage();
    void failedWritesSayWhy();
    void newerOrBrokenFileSaysWhy();
    void surviveKill();
};

void TestChatStore::migratesFromEachOlderVersion_data()
{
    QTest::addColumn<int>("from");
    for (int v = 0; v < ChatStore::kSchemaVersion; ++v)
        QTest::addRow("from v%d", v) << v;
}

void TestChatStore::migratesFromEachOlderVersion()
{
    QFETCH(int, from);
    QTemporaryDir dir;
    const QString path = dir.filePath("chats.sqlite");
    qint64 conv = 0;
    {
        ChatStore old;
        QVERIFY(old.open(path, from));
        QCOMPARE(old.schemaVersion(), from);
        if (from >= 1) {
            conv = idOf(old.createConversation("kept", "/a.gguf", "sys"));
            QVERIFY(conv > 0);
            QVERIFY(idOf(old.appendMessage(conv, ChatStore::message(conv, "user", "hello", "done"))) > 0);
        }
    }
    ChatStore store;
    const ChatStore::Done opened = store.open(path);
    QVERIFY2(opened, why(opened));
    QCOMPARE(store.schemaVersion(), ChatStore::kSchemaVersion);
    QVERIFY(store.integrityOk());
    if (from >= 1) {
        const auto list = store.conversations();
        QCOMPARE(list.size(), 1);
        QCOMPARE(list[0].title, QString("kept"));
        QCOMPARE(list[0].pinned, false); // added by v2 with its default
        const auto messages = store.messages(conv);
        QCOMPARE(messages.size(), 1);
        QCOMPARE(messages[0].content, QString("hello"));
        QCOMPARE(messages[0].stats, QString()); // added by v3 with its defaults
        QCOMPARE(messages[0].version, 0);
        QVERIFY(messages[0].versions.isEmpty());
        QCOMPARE(list[0].settings, QString());
        QCOMPARE(list[0].systemPrompt, QString("sys"));
    }
}

void TestChatStore::imagesStoredWithTheMessage()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("c.sqlite");
    qint64 conv = 0, q = 0;
    QByteArray big(3 * 1024 * 1024, '\0'); // a real photo's size, zeros and all
    big[0] = char(0xff);
    big[1] = char(0xd8);
    {
        ChatStore old;
        QVERIFY(old.open(path, 3)); // a database from before images
        conv = idOf(old.createConversation("t", "/m.gguf", ""));
        QVERIFY(idOf(old.appendMessage(conv, ChatStore::message(conv, "user", "old", "done"))) > 0);
    }
    ChatStore s;
    const ChatStore::Done opened = s.open(path);
    QVERIFY2(opened, why(opened));
    ChatStore::Message m = ChatStore::message(conv, "user", "look", "done");
    m.images = {{big, "image/jpeg"}, {QByteArray("BMxx"), "image/bmp"}};
    q = idOf(s.appendMessage(conv, m));
    QVERIFY(q > 0);
    const auto messages = s.messages(conv);
    QCOMPARE(messages.size(), 2);
    QVERIFY(messages[0].images.isEmpty());
    QCOMPARE(messages[1].images.size(), 2);
    QCOMPARE(messages[1].images[0].data.size(), big.size());
    QVERIFY(messages[1].images[0] == m.images[0]);
    QCOMPARE(messages[1].images[1].mime, QString("image/bmp"));
    // Inside a transaction too (edit and resend write several rows at once).
    QVERIFY(s.transaction());
    QVERIFY(idOf(s.appendMessage(conv, m)) > 0);
    QVERIFY(s.rollback());
    QCOMPARE(s.messages(conv).size(), 2);
    // Deleting the message deletes its images.
    QVERIFY(s.deleteMessage(q));
    QSqlQuery count(QSqlDatabase::database(QSqlDatabase::connectionNames().constFirst()));
    QVERIFY(s.images(q).isEmpty());
    QVERIFY(s.integrityOk());
}

void TestChatStore::versionsAndSettings()
{
    QTemporaryDir dir;
    ChatStore s;
    QVERIFY(s.open(dir.filePath("c.sqlite")));
    const qint64 conv = idOf(s.createConversation("t", "/m.gguf", ""));
    const qint64 q = idOf(s.appendMessage(conv, ChatStore::message(conv, "user", "q", "done")));
    const qint64 a = idOf(s.appendMessage(conv, ChatStore::message(conv, "assistant", "v1", "done")));
    QVERIFY(s.transaction());
    QVERIFY(idOf(s.appendVersion(a, {0, "v1", "", "done", R"({"generatedTokens":3})"})) > 0);
    const qint64 v2 = idOf(s.appendVersion(a, {0, "", "", "streaming", ""}));
    QVERIFY(s.setShownVersion(a, 1));
    QVERIFY(s.commit());
    QVERIFY(s.updateVersion(v2, "v2", "why", "done", R"({"generatedTokens":5})"));
    QVERIFY(s.updateMessage(a, "v2", "why", "done", R"({"generatedTokens":5})"));
    auto m = s.messages(conv);
    QCOMPARE(m[1].versions.size(), 2);
    QCOMPARE(m[1].version, 1);
    QCOMPARE(m[1].content, QString("v2"));
    QVERIFY(s.setShownVersion(a, 0));
    QVERIFY(!s.setShownVersion(a, 5));
    m = s.messages(conv);
    QCOMPARE(m[1].content, QString("v1"));
    QCOMPARE(m[1].stats, QString(R"({"generatedTokens":3})"));
    QVERIFY(s.setConversationSettings(conv, "be brief", R"({"temperature":0.6})"));
    QVERIFY(s.setConversationModel(conv, "/moved/m.gguf"));
    const auto c = s.conversation(conv);
    QCOMPARE(c.systemPrompt, QString("be brief"));
    QCOMPARE(c.settings, QString(R"({"temperature":0.6})"));
    QCOMPARE(c.modelPath, QString("/moved/m.gguf"));
    // Edit and resend drops what followed; deleting a message takes its versions with it.
    QVERIFY(s.deleteMessagesAfter(conv, q));
    QCOMPARE(s.messages(conv).size(), 1);
    QVERIFY(s.versions(a).isEmpty());
    QVERIFY(s.deleteMessage(q));
    QVERIFY(s.messages(conv).isEmpty());
    QVERIFY(s.integrityOk());
}

void TestChatStore::conversationsAndMessages()
{
    QTemporaryDir dir;
    ChatStore s;
    QVERIFY(s.open(dir.filePath("c.sqlite")));
    const qint64 a = idOf(s.createConversation("First chat", "/m.gguf", ""));
    const qint64 b = idOf(s.createConversation("Second chat", "/m.gguf", ""));
    QVERIFY(idOf(s.appendMessage(a, ChatStore::message(a, "user", "tell me about experts", "done"))) > 0);
    const qint64 ans = idOf(s.appendMessage(b, ChatStore::message(b, "assistant", "", "streaming")));
    QVERIFY(s.updateMessage(ans, "partial", "thinking", "streaming"));
    QVERIFY(s.updateMessage(ans, "partial answer", "thinking", "stopped"));
    const auto msgs = s.messages(b);
    QCOMPARE(msgs.size(), 1);
    QCOMPARE(msgs[0].content, QString("partial answer"));
    QCOMPARE(msgs[0].reasoning, QString("thinking"));
    QCOMPARE(msgs[0].state, QString("stopped"));
    QCOMPARE(s.conversations().size(), 2);
    QCOMPARE(s.conversations("experts").size(), 1); // by text
    QCOMPARE(s.conversations("Second").size(), 1);  // by title
    QVERIFY(s.renameConversation(a, "Renamed"));
    QCOMPARE(s.conversations("Renamed").size(), 1);
    QVERIFY(s.deleteConversation(b));
    QCOMPARE(s.messages(b).size(), 0); // cascade
    QVERIFY(!s.deleteConversation(b));
}

// A write that fails says why: SQLite's reason, or the row that is not there (these writes
// used to return false with no reason, or the reason of an earlier failure).
void TestChatStore::failedWritesSayWhy()
{
    using shoehorn::ErrorCode;
    QTemporaryDir dir;
    const QString path = dir.filePath("c.sqlite");
    qint64 conv = 0, msg = 0;
    {
        ChatStore s;
        QVERIFY(s.open(path));
        conv = idOf(s.createConversation("t", "/m.gguf", ""));
        msg = idOf(s.appendMessage(conv, ChatStore::message(conv, "user", "q", "done")));
        QVERIFY(conv > 0 && msg > 0);
        const auto missing = [](const ChatStore::Done &d, const char *text) {
            return !d && d.error().code == ErrorCode::InvalidArgument && d.error().detail == text;
        };
        QVERIFY(missing(s.renameConversation(999, "x"), "no conversation 999"));
        QVERIFY(missing(s.deleteConversation(998), "no conversation 998"));
        QVERIFY(missing(s.setConversationModel(997, "/m"), "no conversation 997"));
        QVERIFY(missing(s.setConversationSettings(996, "", ""), "no conversation 996"));
        QVERIFY(missing(s.updateMessage(995, "", "", "done"), "no message 995"));
        QVERIFY(missing(s.deleteMessage(994), "no message 994"));
        QVERIFY(missing(s.updateVersion(993, "", "", "done"), "no version 993"));
        QVERIFY(missing(s.setShownVersion(msg, 2), qPrintable(QString("message %1 has no version 2 (0 stored)").arg(msg))));
        // A message of a conversation that is not there: the foreign key, in SQLite's words.
        const auto orphan = s.appendMessage(990, ChatStore::message(990, "user", "q", "done"));
        QVERIFY(!orphan);
        QCOMPARE(orphan.error().code, ErrorCode::FileUnwritable);
        QVERIFY2(QString::fromStdString(orphan.error().detail).contains("FOREIGN KEY"), orphan.error().detail.c_str());
        // A failed write with images leaves no transaction open behind it.
        ChatStore::Message withImage = ChatStore::message(990, "user", "q", "done");
        withImage.images = {{QByteArray("BMxx"), "image/bmp"}};
        QVERIFY(!s.appendMessage(990, withImage));
        const ChatStore::Done begun = s.transaction();
        QVERIFY2(begun, why(begun));
        QVERIFY(s.rollback());
        // The same when the savepoint's RELEASE fails (it commits: a full disk; here a foreign key
        // checked only at commit): nothing is kept and nothing stays open.
        QSqlDatabase db = QSqlDatabase::database(QSqlDatabase::connectionNames().constFirst());
        QVERIFY(QSqlQuery(db).exec("PRAGMA defer_foreign_keys = ON"));
        const auto deferred = s.appendMessage(990, withImage);
        QVERIFY(!deferred);
        QVERIFY2(QString::fromStdString(deferred.error().detail).contains("FOREIGN KEY"), deferred.error().detail.c_str());
        const ChatStore::Done again = s.transaction();
        QVERIFY2(again, why(again));
        QVERIFY(s.rollback());
        QSqlQuery orphans(db);
        QVERIFY(orphans.exec("SELECT COUNT(*) FROM messages WHERE conversation_id = 990") && orphans.next());
        QCOMPARE(orphans.value(0).toInt(), 0);
    }
}

// A file written by a newer Shoehorn, or not a database at all: the writes or the open say why.
void TestChatStore::newerOrBrokenFileSaysWhy()
{
    using shoehorn::ErrorCode;
    QTemporaryDir dir;
    const QString path = dir.filePath("c.sqlite");
    qint64 conv = 0;
    {
        ChatStore s;
        QVERIFY(s.open(path));
        conv = idOf(s.createConversation("t", "/m.gguf", ""));
        QVERIFY(conv > 0);
    }
    // Written by a newer Shoehorn: opened read-only, and every write says SQLite refused it.
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "newer");
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QVERIFY(QSqlQuery(db).exec("PRAGMA user_version=99"));
        db.close();
    }
    QSqlDatabase::removeDatabase("newer");
    ChatStore s;
    QVERIFY(s.open(path));
    QVERIFY(s.readOnly());
    const auto refused = s.createConversation("t", "/m.gguf", "");
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ErrorCode::FileUnwritable);
    QVERIFY2(QString::fromStdString(refused.error().detail).contains("readonly"), refused.error().detail.c_str());
    const ChatStore::Done renamed = s.renameConversation(conv, "x");
    QVERIFY(!renamed);
    QCOMPARE(renamed.error().code, ErrorCode::FileUnwritable);
    QVERIFY2(QString::fromStdString(renamed.error().detail).contains("readonly"), renamed.error().detail.c_str());
    // Not a database at all: unreadable, in SQLite's words.
    const QString junk = dir.filePath("junk.sqlite");
    {
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
    }
    ChatStore j;
    const ChatStore::Done notDb = j.open(junk);
    QVERIFY(!notDb);
    QCOMPARE(notDb.error().code, ErrorCode::FileUnreadable);
    QVERIFY2(!notDb.error().detail.empty(), "no reason");
}

void TestChatStore::surviveKill()
{
    // A helper writes like the app and is killed with SIGKILL at random points, 50 times.
    QTemporaryDir dir;
    const QString path = dir.filePath("crash.sqlite");
    const QString writer = QCoreApplication::applicationDirPath() + "/chatstore_writer";
    QVERIFY(QFile::exists(writer));
    QRandomGenerator rng(20261130);
    int ok = 0;
    qint64 lastCommittedSeen = 0;
    for (int round = 0; round < 50; ++round) {
        QProcess p;
        p.start(writer, {path, "5"});
        QVERIFY(p.waitForStarted(5000));
        QTest::qWait(40 + int(rng.bounded(160)));
        p.kill(); // SIGKILL
        QVERIFY(p.waitForFinished(5000));
        const QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        QMap<qint64, int> committed;  // id -> length
        QMap<qint64, int> checkpoint; // id -> longest reported length
        for (const QString &l : lines) {
            const QStringList f = l.split(' ');
            if (f.size() != 3)
                continue;
            (f[0] == "committed" ? committed : checkpoint)[f[1].toLongLong()] = f[2].toInt();
        }
        ChatStore s;
        QVERIFY(s.open(path));
        QVERIFY(s.integrityOk());
        const auto convs = s.conversations();
        QVERIFY(convs.size() <= 1);
        QMap<qint64, ChatStore::Message> byId;
        if (!convs.isEmpty())
            for (const auto &m : s.messages(convs[0].id))
                byId[m.id] = m;
        bool good = true;
        for (auto it = committed.cbegin(); it != committed.cend(); ++it) {
            const auto m = byId.value(it.key());
            good &= m.id == it.key() && m.state == "done" && m.content.size() == it.value();
            lastCommittedSeen = std::max(lastCommittedSeen, it.key());
        }
        // The answer that was streaming when the process died is there and readable, with at
        // least the text of its last reported checkpoint.
        for (auto it = checkpoint.cbegin(); it != checkpoint.cend(); ++it) {
            if (committed.contains(it.key()))
                continue;
            const auto m = byId.value(it.key());
            good &= m.id == it.key() && m.content.size() >= it.value() && m.content.startsWith("token0");
        }
        ok += good;
    }
    std::printf("kill test: %d/50 rounds with every committed message present, integrity ok and the partial "
                "answer readable (last committed id %lld)\n",
                ok, lastCommittedSeen);
    QCOMPARE(ok, 50);
}

QTEST_GUILESS_MAIN(TestChatStore)
#include "tst_chatstore.moc"
