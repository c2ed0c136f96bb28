// The chats as the controller writes them: typed, and several writes all or nothing.
#include "conversationrepository.h"
#include "chatstore.h"
#include "testsettings.h"
#include "workpool.h"

#include <QDir>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

using Author = ChatModel::Author;
using State = ChatModel::State;

class TestConversationRepository : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_path;
    void refuse(const QString &trigger); // a trigger in the database that refuses a write

private slots:
    void initTestCase() { isolateSettings(); }
    void init();
    void typedRoundTrip();
    void regenerateKeepsTheShownAnswer();
    void failedEditChangesNothing();
    void failedVersionChangesNothing();
    void singleWritesSayWhy();
    void unopenedRepositoryWritesNothing();
    void unreadableHistoryIsMovedAside_data();
    void unreadableHistoryIsMovedAside();
    void noRoomForANewHistory();
    void newerSchemaOpensReadOnly();
    void interruptedAnswersAreMarkedStopped();
    void importInBackground_data();
    void importInBackground();
    void damageIsLookedForAfterAnUncleanExit();
    void theWalIsCopiedOnThePool();
};

void TestConversationRepository::unreadableHistoryIsMovedAside_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("not a database") << QByteArray("these are not the chats you are looking for\n");
    QTest::newRow("random bytes") << QByteArray(8192, '\x5a');
    QByteArray header("SQLite format 3");
    header.append('\0');
    QTest::newRow("a database header, then garbage") << header + QByteArray(8192, '\x01');
}

void TestConversationRepository::unreadableHistoryIsMovedAside()
{
    QFETCH(QByteArray, content);
    {
        QFile f(m_path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }
    ConversationRepository r;
    QCOMPARE(r.open(m_path).kind, HistoryProblem::Kind::MovedAside);
    QVERIFY(r.writable());
    QCOMPARE(r.problem().kind, HistoryProblem::Kind::MovedAside); // kept for the window
    // The old file is kept, byte for byte, where the message says.
    const QStringList aside = QDir(m_dir.path()).entryList({QFileInfo(m_path).fileName() + ".unreadable-*"});
    QCOMPARE(aside.size(), 1);
    QCOMPARE(QFileInfo(r.problem().movedTo).fileName(), aside.first());
    QFile old(m_dir.filePath(aside.first()));
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), content);
    // The new history works.
    QVERIFY(r.createConversation("t", {}, {}, {}) > 0);
    QFile::remove(old.fileName());
}

// The unreadable file is moved aside, and the new one cannot be made either: a folder where
// SQLite's journal must go (works as root too, where permissions would not stop it). Nothing is
// saved, and an import says why in SQLite's words, not just "not open".
void TestConversationRepository::noRoomForANewHistory()
{
    const QByteArray content("these are not the chats you are looking for\n");
    {
        QFile f(m_path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }
    QVERIFY(QDir().mkpath(m_path + "-journal"));
    ConversationRepository r;
    QCOMPARE(r.open(m_path).kind, HistoryProblem::Kind::MovedAsideNoNew);
    QVERIFY(!r.isOpen());
    QVERIFY(!r.writable());
    QVERIFY2(!r.problem().newReason.isEmpty(), "no reason for the new history");
    QVERIFY(!r.problem().movedTo.isEmpty());
    QFile old(r.problem().movedTo);
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), content); // kept, byte for byte
    QCOMPARE(r.createConversation("t", {}, {}, {}), qint64(0));
    const auto imported = r.importJson(R"({"title":"x","messages":[]})");
    QVERIFY(!imported.ok());
    QCOMPARE(imported.error().code, shoehorn::ErrorCode::FileUnwritable);
    QCOMPARE(QString::fromStdString(imported.error().detail), r.problem().newReason);
    qInfo("new history: %s", qPrintable(r.problem().newReason));
    QDir(m_path + "-journal").removeRecursively();
    QFile::remove(old.fileName());
}

void TestConversationRepository::newerSchemaOpensReadOnly()
{
    qint64 c = 0;
    {
        ConversationRepository r;
        QVERIFY(r.open(m_path).isNone());
        QVERIFY(r.isOpen());
        c = r.createConversation("from the future", {}, {}, {});
        r.appendMessage(c, Author::User, "q", State::Done);
    }
    refuse("PRAGMA user_version = 99");
    ConversationRepository r;
    QSignalSpy failed(&r, &ConversationRepository::failed);
    QCOMPARE(r.open(m_path).kind, HistoryProblem::Kind::ReadOnlyNewer);
    QVERIFY(r.isOpen());
    QVERIFY(!r.writable());
    QCOMPARE(r.problem().reason, QString("schema version 99 is newer than this Shoehorn's %1").arg(ChatStore::kSchemaVersion));
    QCOMPARE(r.messages(c).size(), 1); // still readable
    QCOMPARE(r.appendMessage(c, Author::User, "more", State::Done), qint64(0));
    QCOMPARE(r.createConversation("new", {}, {}, {}), qint64(0));
    QCOMPARE(failed.count(), 0); // said once, at open; not on every write
    // Nothing was written: the file still says 99 and has the one message.
    QCOMPARE(r.store()->schemaVersion(), 99);
    QCOMPARE(r.store()->messages(c).size(), 1);
}

void TestConversationRepository::interruptedAnswersAreMarkedStopped()
{
    qint64 c = 0;
    {
        ConversationRepository r;
        QVERIFY(r.open(m_path).isNone());
        c = r.createConversation("t", {}, {}, {});
        r.appendMessage(c, Author::User, "q", State::Done);
        const qint64 a = r.appendMessage(c, Author::Assistant, {}, State::Streaming);
        ChatModel::Version partial;
        partial.content = "half an ans";
        partial.state = State::Streaming; // the last checkpoint before a crash
        QVERIFY(r.saveAnswer(a, 0, partial));
    }
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    const auto stored = r.store()->messages(c);
    QCOMPARE(stored.at(1).state, QString("stopped"));
    QCOMPARE(stored.at(1).content, QString("half an ans"));
}

// PRAGMA integrity_check reads the whole history (1.2-1.4 s for 200 MB from a cold disk): it runs
// only when the last run left its WAL behind (killed, or the power went). A damaged page is then
// found and the file moved aside; after a clean close the history opens without the check.
void TestConversationRepository::damageIsLookedForAfterAnUncleanExit()
{
    {
        ChatStore store;
        QVERIFY(store.open(m_path).ok());
        const auto chat = store.createConversation("t", {}, {});
        QVERIFY(chat.ok());
        for (int i = 0; i < 40; ++i)
            QVERIFY(store.appendMessage(*chat, ChatStore::message(*chat, "user", QString(3000, QChar('a' + i % 26)), "done")).ok());
    } // closed cleanly: no WAL left
    QVERIFY(!QFileInfo::exists(m_path + "-wal"));
    QFile file(m_path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QVERIFY(file.size() > 16 * 4096);
    QVERIFY(file.seek(file.size() - 8 * 4096)); // a page of the messages, well past the schema
    file.write(QByteArray(4096, '\xa5'));
    file.close();
    const QByteArray damaged = [this] {
        QFile f(m_path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    {
        ConversationRepository clean;
        QCOMPARE(clean.open(m_path).kind, HistoryProblem::Kind::None); // not read through at start
        QVERIFY(clean.isOpen());
    }
    QFile(m_path + "-wal").open(QIODevice::WriteOnly); // as a killed process leaves it
    ConversationRepository r;
    QCOMPARE(r.open(m_path).kind, HistoryProblem::Kind::MovedAside);
    QFile old(r.problem().movedTo);
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), damaged);
    QVERIFY(r.createConversation("new", {}, {}, {}) > 0);
}

// The window's connection does not copy the WAL into the database inside its commits (SQLite's
// automatic checkpoint: two fsyncs in the commit that crosses 1000 pages); a connection on the
// pool does, every kCheckpointWrites writes.
void TestConversationRepository::theWalIsCopiedOnThePool()
{
    ConversationRepository r;
    QCOMPARE(r.open(m_path).kind, HistoryProblem::Kind::None);
    for (const QString &name : QSqlDatabase::connectionNames()) {
        QSqlQuery q(QSqlDatabase::database(name));
        QVERIFY(q.exec("PRAGMA wal_autocheckpoint") && q.next());
        QCOMPARE(q.value(0).toInt(), 0);
    }
    const qint64 chat = r.createConversation("long", {}, {}, {});
    QVERIFY(chat > 0);
    const qint64 before = QFileInfo(m_path).size();
    for (int i = 1; i < ConversationRepository::kCheckpointWrites - 1; ++i)
        QVERIFY(r.appendMessage(chat, Author::User, QString(2000, 'q'), State::Done) > 0);
    workPool()->waitForDone();
    QCOMPARE(QFileInfo(m_path).size(), before); // all of it still in the WAL
    QVERIFY(r.appendMessage(chat, Author::User, QString(2000, 'q'), State::Done) > 0);
    QTRY_VERIFY(QFileInfo(m_path).size() > before + 100 * 2000);
}

void TestConversationRepository::init()
{
    m_path = m_dir.filePath(QString("chats-%1.sqlite").arg(QTest::currentTestFunction()));
    QFile::remove(m_path);
}

void TestConversationRepository::refuse(const QString &trigger)
{
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "refuse");
        db.setDatabaseName(m_path);
        QVERIFY(db.open());
        QVERIFY2(QSqlQuery(db).exec(trigger), qPrintable(trigger));
    }
    QSqlDatabase::removeDatabase("refuse");
}

void TestConversationRepository::typedRoundTrip()
{
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    const qint64 c = r.createConversation("t", "/m/a.gguf", "Be brief.", "{}");
    QVERIFY(c > 0);
    QVERIFY(r.appendMessage(c, Author::User, "q", State::Done) > 0);
    const qint64 a = r.appendMessage(c, Author::Assistant, {}, State::Streaming);
    ChatModel::Version answer;
    answer.content = "partial";
    answer.state = State::Stopped;
    QVERIFY(r.saveAnswer(a, 0, answer));
    const auto msgs = r.messages(c);
    QCOMPARE(msgs.size(), 2);
    QCOMPARE(msgs[0].author, Author::User);
    QCOMPARE(msgs[1].author, Author::Assistant);
    QCOMPARE(msgs[1].state, State::Stopped);
    QCOMPARE(msgs[1].content, QString("partial"));
    QCOMPARE(r.store()->messages(c).at(1).state, QString("stopped")); // the stored name
    QCOMPARE(r.conversation(c).systemPrompt, QString("Be brief."));
}

void TestConversationRepository::regenerateKeepsTheShownAnswer()
{
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    const qint64 c = r.createConversation("t", {}, {}, {});
    r.appendMessage(c, Author::User, "q", State::Done);
    const qint64 a = r.appendMessage(c, Author::Assistant, "first", State::Done);
    ChatModel::Version first;
    first.content = "first";
    const qint64 v = r.beginVersion(a, &first, 1);
    QVERIFY(v > 0);
    ChatModel::Version second;
    second.content = "second";
    QVERIFY(r.saveAnswer(a, v, second));
    const auto msgs = r.messages(c);
    QCOMPARE(msgs[1].versionCount(), 2);
    QCOMPARE(msgs[1].versions[0].content, QString("first"));
    QCOMPARE(msgs[1].versions[1].content, QString("second"));
    QCOMPARE(msgs[1].current, 1);
}

void TestConversationRepository::failedEditChangesNothing()
{
    {
        ConversationRepository r;
        QVERIFY(r.open(m_path).isNone());
        const qint64 c = r.createConversation("t", {}, {}, {});
        r.appendMessage(c, Author::User, "q1", State::Done);
        r.appendMessage(c, Author::Assistant, "a1", State::Done);
    }
    refuse("CREATE TRIGGER no_edit BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    const qint64 c = r.store()->conversations().first().id;
    const qint64 q = r.store()->messages(c).first().id;
    QSignalSpy failed(&r, &ConversationRepository::failed);
    QVERIFY(!r.editQuestion(c, q, "q1 edited"));
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().at(0).value<ConversationRepository::Write>(), ConversationRepository::Write::EditedQuestion);
    QVERIFY(QString::fromStdString(failed.first().at(1).value<shoehorn::Error>().detail).contains("disk says no"));
    QCOMPARE(failed.first().at(1).value<shoehorn::Error>().code, shoehorn::ErrorCode::FileUnwritable);
    // The delete of the answer that preceded the refused update is rolled back.
    const auto msgs = r.messages(c);
    QCOMPARE(msgs.size(), 2);
    QCOMPARE(msgs[0].content, QString("q1"));
    QCOMPARE(msgs[1].content, QString("a1"));
}

void TestConversationRepository::failedVersionChangesNothing()
{
    qint64 a = 0;
    {
        ConversationRepository r;
        QVERIFY(r.open(m_path).isNone());
        const qint64 c = r.createConversation("t", {}, {}, {});
        r.appendMessage(c, Author::User, "q", State::Done);
        a = r.appendMessage(c, Author::Assistant, "first", State::Done);
    }
    refuse("CREATE TRIGGER no_shown BEFORE UPDATE ON messages BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    QSignalSpy failed(&r, &ConversationRepository::failed);
    ChatModel::Version first;
    first.content = "first";
    QCOMPARE(r.beginVersion(a, &first, 1), qint64(0));
    QCOMPARE(failed.count(), 1);
    QVERIFY(r.store()->versions(a).isEmpty()); // both version rows rolled back
}

// A single write (not in a transaction) that fails says why: SQLite's reason, or the row that is
// not there (these used to report an empty reason, or an earlier failure's).
void TestConversationRepository::singleWritesSayWhy()
{
    ConversationRepository r;
    QVERIFY(r.open(m_path).isNone());
    const qint64 kept = r.createConversation("kept", {}, {}, {});
    const qint64 gone = r.createConversation("gone", {}, {}, {});
    QVERIFY(r.remove(gone));
    QSignalSpy failed(&r, &ConversationRepository::failed);
    QVERIFY(!r.rename(gone, "x"));
    QVERIFY(!r.setModel(gone, "/m.gguf"));
    QCOMPARE(failed.count(), 2);
    QCOMPARE(failed.at(0).at(0).value<ConversationRepository::Write>(), ConversationRepository::Write::ChatName);
    QCOMPARE(failed.at(0).at(1).value<shoehorn::Error>().code, shoehorn::ErrorCode::InvalidArgument);
    QCOMPARE(QString::fromStdString(failed.at(0).at(1).value<shoehorn::Error>().detail),
             QString("no conversation %1").arg(gone));
    QCOMPARE(failed.at(1).at(0).value<ConversationRepository::Write>(), ConversationRepository::Write::ChatModel);
    refuse("CREATE TRIGGER no_rename BEFORE UPDATE ON conversations BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    QVERIFY(!r.rename(kept, "y"));
    QCOMPARE(failed.count(), 3);
    const QString why = QString::fromStdString(failed.at(2).at(1).value<shoehorn::Error>().detail);
    QVERIFY2(why.contains("disk says no"), qPrintable(why));
}

void TestConversationRepository::unopenedRepositoryWritesNothing()
{
    ConversationRepository r;
    QVERIFY(!r.store());
    QCOMPARE(r.createConversation("t", {}, {}, {}), qint64(0));
    QCOMPARE(r.appendMessage(1, Author::User, "q", State::Done), qint64(0));
    QVERIFY(r.messages(1).isEmpty());
    const auto imported = r.importJson("{}");
    QVERIFY(!imported);
    QCOMPARE(imported.error().code, shoehorn::ErrorCode::FileUnwritable); // no store to write to
}

void TestConversationRepository::importInBackground_data()
{
    QTest::addColumn<QByteArray>("file"); // empty: no such file
    QTest::addColumn<bool>("opened");
    QTest::addColumn<int>("code");       // 0: imported
    const QByteArray chat = R"({"format":"shoehorn-chat","title":"from elsewhere","messages":[
        {"role":"user","content":"q"},{"role":"assistant","content":"a"}]})";
    QTest::newRow("an export") << chat << true << 0;
    QTest::newRow("no such file") << QByteArray() << true << int(shoehorn::ErrorCode::FileNotFound);
    QTest::newRow("not an export") << QByteArray("# Markdown\n") << true << int(shoehorn::ErrorCode::Corrupt);
    QTest::newRow("no history to store it in") << chat << false << int(shoehorn::ErrorCode::FileUnwritable);
}

// A chat export read and stored on the pool with a connection of its own: imported() brings the
// new conversation's id, or the typed reason.
void TestConversationRepository::importInBackground()
{
    QFETCH(QByteArray, file);
    QFETCH(bool, opened);
    QFETCH(int, code);
    const QString path = m_dir.filePath("export.json");
    QFile::remove(path);
    if (!file.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(file);
    }
    ConversationRepository r;
    if (opened)
        QVERIFY(r.open(m_path).isNone());
    QList<QPair<quint64, shoehorn::Result<qint64>>> results;
    connect(&r, &ConversationRepository::imported, this,
            [&results](quint64 ticket, const shoehorn::Result<qint64> &c) { results.append({ticket, c}); });
    const quint64 ticket = r.importInBackground(path);
    QVERIFY(ticket > 0);
    QVERIFY(results.isEmpty()); // not here: on the pool
    QTRY_COMPARE(results.size(), 1);
    QCOMPARE(results.first().first, ticket);
    const shoehorn::Result<qint64> &imported = results.first().second;
    if (code) {
        QVERIFY(!imported);
        QCOMPARE(int(imported.error().code), code);
        QVERIFY(!imported.error().detail.empty());
        if (opened)
            QVERIFY(r.store()->conversations().isEmpty());
        return;
    }
    QVERIFY2(imported, imported ? "" : imported.error().detail.c_str());
    QCOMPARE(r.conversation(*imported).title, QString("from elsewhere"));
    const auto messages = r.messages(*imported);
    QCOMPARE(messages.size(), 2);
    QCOMPARE(messages[1].content, QString("a"));
}

QTEST_GUILESS_MAIN(TestConversationRepository)
#include "tst_conversationrepository.moc"
