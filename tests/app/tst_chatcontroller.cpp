// The controller and its worker thread, on the tiny fixtures.
#include "appsettings.h"
#include "startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "chatjson.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "conversationrepository.h"
#include "fakeworker.h"
#include "hardwaremonitor.h"
#include "tuningstore.h"
#include "visioncontroller.h"
#include "inferenceworker.h"
#include "smallchat.h"
#include "testfixtures.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <thread>

using State = LoadedModel::State;

namespace {
// Another process's write in progress: the history's write lock, held by a thread of its own
// (a connection is used where it was made) until `held` ms have passed.
class HistoryLock
{
public:
    explicit HistoryLock(int held)
    {
        std::atomic<bool> taken{false};
        m_thread = std::thread([this, held, &taken] {
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("locker"));
                db.setDatabaseName(ChatStore::defaultPath());
                const bool ok = db.open() && QSqlQuery(db).exec(QStringLiteral("BEGIN IMMEDIATE"));
                m_held = ok;
                taken = true;
                if (ok) {
                    QThread::msleep(unsigned(held));
                    QSqlQuery(db).exec(QStringLiteral("ROLLBACK"));
                }
                db.close();
            }
            QSqlDatabase::removeDatabase(QStringLiteral("locker"));
        });
        while (!taken)
            QThread::msleep(1);
        m_since.start();
    }
    ~HistoryLock() { m_thread.join(); }
    bool held() const { return m_held; }
    qint64 elapsedMs() const { return m_since.elapsed(); } // since the lock was taken

private:
    std::thread m_thread;
    std::atomic<bool> m_held{false};
    QElapsedTimer m_since;
};

const ChatImage kPicture{QByteArray("\x89PNG\r\n\x1a\n") + QByteArray(300000, 'p'), QStringLiteral("image/png")};

// A loaded fake model that reads pictures, and a first question stored (the chat exists).
[[nodiscard]] bool readyForPictures(AppCore &core)
{
    ChatController &c = *core.chat();
    InferenceSession &session = *core.session();
    // The automatic choice (none beside the fake model) made first, so that it does not drop ours.
    if (!QTest::qWaitFor([&] { return core.vision()->facts(core.model()->model().path, {}).has_value(); }, 5000))
        return false;
    QCoreApplication::processEvents();
    session.loadProjector(QStringLiteral("/models/mmproj-fake.gguf"), true);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    return QTest::qWaitFor([&] { return session.vision().ready; }, 5000) && c.send(QStringLiteral("first")) &&
           QTest::qWaitFor([&] { return finished.count() == 1; }, 5000);
}
} // namespace

class TestChatController : public QObject
{
    Q_OBJECT
private:
    static void configure(LoadedModel &c, int maxTokens);
    // A controller on a fake worker (no llama.cpp), with a fake model loaded.
    struct FakeChat {
        FakeWorker *worker = new FakeWorker;
        AppCore cApp{std::unique_ptr<Worker>(worker)};
        ChatController &c = *cApp.chat();
        LoadedModel &lm = *cApp.model();
        [[nodiscard]] bool load()
        {
            QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
            lm.openModel(QStringLiteral("/models/fake.gguf"));
            return QTest::qWaitFor([&] { return loaded.count() == 1; }, 5000);
        }
        // Loaded, reading pictures, a first question answered in three words.
        [[nodiscard]] bool loadForPictures()
        {
            worker->tokens = 3;
            return load() && readyForPictures(cApp);
        }
        // Then a question with kPicture answered and both rows stored.
        [[nodiscard]] bool pictureChat()
        {
            if (!loadForPictures())
                return false;
            QSignalSpy finished(&c, &ChatController::answerFinished);
            return c.send(QStringLiteral("What is this?"), {kPicture}) &&
                   QTest::qWaitFor([&] { return finished.count() == 1; }, 5000) &&
                   QTest::qWaitFor([&] { return c.chatModel()->message(3).storeId != 0; }, 5000);
        }
    };

private slots:
    void init();
    void loadThenStreamInOrder();
    void stopMidAnswer();
    void fatalDecodeIsAnError();
    void quittingSavesTheStoppedAnswer();
    void failedWritesAreReported();
    void secondTurnReusesCache();
    void destroyWhileGenerating();
    void chatsAreStoredAndReopened();
    void picturesAreStoredOffTheGuiThread();
    void quittingWhileAPictureIsStored();
    void picturesAreReadOffTheGuiThread();
    void chatsAreImportedOffTheGuiThread();
    void chatsAreDeletedOffTheGuiThread();
    void titleFollowsTheFirstQuestionsEdit();
    void autoTitleHasNoMarkdown_data();
    void autoTitleHasNoMarkdown();
};

void TestChatController::init()
{
    // Per-model settings are remembered; every test starts from none.
    startFresh();
}

void TestChatController::configure(LoadedModel &c, int maxTokens)
{
    configureSmallChat(c, maxTokens, 3);
}

void TestChatController::loadThenStreamInOrder()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm, 400);
    QAbstractItemModelTester tester(c.chatModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    QSignalSpy progress(&lm, &LoadedModel::loadProgress);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QCOMPARE(lm.state(), State::Loading);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(lm.state(), State::Ready);
    QVERIFY(progress.count() >= 1);
    QCOMPARE(lm.model().architecture, QString("qwen3moe"));
    QCOMPARE(lm.model().contextSize, 1024);

    // Record every change to the answer row as it happens on the GUI thread.
    QStringList snapshots;
    // Text updates only: the note ("Reading the prompt…") and the final state change the row too.
    connect(c.chatModel(), &QAbstractItemModel::dataChanged, this,
            [&](const QModelIndex &i, const QModelIndex &, const QList<int> &roles) {
                if (roles.contains(ChatModel::ContentRole))
                    snapshots << c.chatModel()->message(i.row()).content;
            });
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QSignalSpy live(&c, &ChatController::generationProgress);
    QElapsedTimer answering;
    answering.start();
    QVERIFY(c.send(QStringLiteral("Hello there")));
    QCOMPARE(lm.state(), State::Generating);
    QVERIFY(!c.send(QStringLiteral("busy"))); // one answer at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const qint64 answerMs = answering.elapsed();
    const auto stats = finished.first().first().value<shoehorn::GenerationStats>();
    QVERIFY(stats.generatedTokens > 0);
    QCOMPARE(lm.state(), State::Ready);
    const QString final = c.chatModel()->message(1).content;
    QVERIFY(!final.isEmpty());
    // Deltas arrived in order: every snapshot extends the previous one.
    QVERIFY(snapshots.size() >= 1);
    for (int i = 1; i < snapshots.size(); ++i)
        QVERIFY(snapshots[i].startsWith(snapshots[i - 1]));
    QCOMPARE(snapshots.last(), final);
    // Live speed and context use come with the text batches.
    QVERIFY(live.count() >= 1);
    QCOMPARE(live.last().at(2).toInt(), 1024);
    QVERIFY(live.last().at(1).toInt() > 0);
    // Batched at about 30 Hz: at most one GUI update per 33 ms (plus the first and the last),
    // however fast the tokens come. One update per token breaks this at these speeds.
    qInfo("%d tokens arrived in %lld GUI updates over %lld ms", stats.generatedTokens, qlonglong(snapshots.size()),
          answerMs);
    QVERIFY(snapshots.size() <= answerMs / 33 + 2);
}

void TestChatController::stopMidAnswer()
{
    // A fake worker streams until it is told to stop: the answer cannot end by itself.
    FakeChat f;
    f.worker->tokens = 1000000;
    QVERIFY(f.load());
    ChatController &c = f.c;
    LoadedModel &lm = f.lm;
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("Write a very long story")));
    // At once, before the worker has done anything: the answer says what it waits for.
    QCOMPARE(c.chatModel()->message(1).note, QString("Reading the prompt…"));
    QTRY_VERIFY(!c.chatModel()->message(1).content.isEmpty());
    QElapsedTimer t;
    t.start();
    c.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 2000);
    qInfo("stopped within %lld ms", t.elapsed());
    QCOMPARE(finished.first().first().value<shoehorn::GenerationStats>().stopReason, shoehorn::StopReason::Cancelled);
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Stopped);
    QCOMPARE(lm.state(), State::Ready);
    const QString kept = c.chatModel()->message(1).content;
    QVERIFY(kept.startsWith("w0 "));
    // Stored as stopped, with what was written.
    const auto stored = f.cApp.history()->store()->messages(c.currentConversation());
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored[1].state, QString("stopped"));
    QCOMPARE(stored[1].content, kept);
}

void TestChatController::quittingSavesTheStoppedAnswer()
{
    // Quit while an answer streams: it stops, and what was written is stored as stopped.
    FakeChat f;
    f.worker->tokens = 1000000;
    QVERIFY(f.load());
    ChatController &c = f.c;
    QVERIFY(c.send(QStringLiteral("go on")));
    QTRY_VERIFY(!c.chatModel()->message(1).content.isEmpty());
    const qint64 conversation = c.currentConversation();
    QVERIFY(f.cApp.shutdown(2000));
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Stopped);
    const auto stored = f.cApp.history()->store()->messages(conversation);
    QCOMPARE(stored.at(1).state, QString("stopped"));
    QCOMPARE(stored.at(1).content, c.chatModel()->message(1).content);
}

void TestChatController::fatalDecodeIsAnError()
{
    FakeChat f;
    f.worker->failAfter = 3;
    QVERIFY(f.load());
    ChatController &c = f.c;
    LoadedModel &lm = f.lm;
    QSignalSpy failed(&c, &ChatController::generationFailed);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.first().first().value<shoehorn::Error>().code, shoehorn::ErrorCode::DecodeFailed);
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Failed);
    QCOMPARE(c.chatModel()->message(1).error.code, shoehorn::ErrorCode::DecodeFailed); // the footer says why
    QCOMPARE(c.chatModel()->message(1).content, QString("w0 w1 w2 ")); // what came before stays
    QCOMPARE(f.cApp.history()->store()->messages(c.currentConversation()).at(1).state, QString("failed"));
    QCOMPARE(lm.state(), State::Ready);
}

void TestChatController::failedWritesAreReported()
{
    FakeChat f;
    f.worker->tokens = 3;
    QVERIFY(f.load());
    ChatController &c = f.c;
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("first")));
    QTRY_COMPARE(finished.count(), 1);
    // The disk turns read-only under the running app.
    QSignalSpy storage(&c, &ChatController::storageFailed);
    for (const QString &name : QSqlDatabase::connectionNames())
        if (name.startsWith("chatstore-"))
            QVERIFY(QSqlQuery(QSqlDatabase::database(name)).exec("PRAGMA query_only = ON"));
    // Regenerating writes several rows in one transaction: it fails whole and says so.
    QVERIFY(c.regenerate(1));
    QTRY_COMPARE(finished.count(), 2);
    QVERIFY(storage.count() >= 1);
    const shoehorn::Error why = storage.first().at(1).value<shoehorn::Error>();
    QCOMPARE(why.code, shoehorn::ErrorCode::FileUnwritable);
    QVERIFY2(QString::fromStdString(why.detail).contains("readonly"), why.detail.c_str());
    QCOMPARE(storage.first().at(0).value<ConversationRepository::Write>(), ConversationRepository::Write::NewVersion);
    QCOMPARE(f.cApp.history()->store()->messages(c.currentConversation()).at(1).versions.size(), 0); // nothing half-written
    storage.clear();
    QVERIFY(c.send(QStringLiteral("second")));
    QTRY_COMPARE(finished.count(), 3);
    QVERIFY(storage.count() >= 2); // the question and the answer
    // Nothing is lost in the window.
    QCOMPARE(c.chatModel()->rowCount(), 4);
    QCOMPARE(c.chatModel()->message(1).versionCount(), 2);
    QCOMPARE(c.chatModel()->message(2).content, QString("second"));
}

void TestChatController::secondTurnReusesCache()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm, 24);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("The first question is a longer one, so that its prompt has many tokens in it")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QVERIFY(c.send(QStringLiteral("Two?")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 20000);
    const auto first = finished.at(0).first().value<shoehorn::GenerationStats>();
    const auto second = finished.at(1).first().value<shoehorn::GenerationStats>();
    QCOMPARE(second.reusedTokens, first.contextUsed);
    QVERIFY(second.promptEvaluated < first.promptTokens);
}

void TestChatController::destroyWhileGenerating()
{
    auto app = std::make_unique<AppCore>();
    ChatController *c = app->chat();
    LoadedModel *m = app->model();
    configure(*m, -1);
    QSignalSpy loaded(m, &LoadedModel::modelLoaded);
    m->openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QVERIFY(c->send(QStringLiteral("go on forever")));
    QTRY_VERIFY_WITH_TIMEOUT(m->state() == State::Generating, 5000);
    QTest::qWait(20);
    QElapsedTimer t;
    t.start();
    app.reset(); // cancels, quits and joins the thread
    qInfo("destroyed while generating in %lld ms", t.elapsed());
    QVERIFY(t.elapsed() < 2000);
}

// A photo's bytes take tens of ms to store: the question with its pictures and the answer's row
// are written on the pool. With the history's lock held by another writer, the answer streams
// and ends meanwhile; its last write follows the question's when the lock goes (#31).
void TestChatController::picturesAreStoredOffTheGuiThread()
{
    FakeChat f;
    QVERIFY(f.loadForPictures());
    ChatController &c = f.c;
    const qint64 conversation = c.currentConversation();
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QSignalSpy storage(&c, &ChatController::storageFailed);
    {
        HistoryLock lock(1500);
        QVERIFY(lock.held());
        QVERIFY(c.send(QStringLiteral("What is this?"), {kPicture}));
        QTRY_COMPARE(finished.count(), 1);
        qInfo("sent and answered in %lld ms while the history was locked", lock.elapsedMs());
        QVERIFY(lock.elapsedMs() < 1000); // not after the lock
        QCOMPARE(f.cApp.history()->store()->messages(conversation).size(), 2); // not stored yet
        QCOMPARE(c.chatModel()->message(3).state, ChatModel::State::Done);
    }
    QTRY_COMPARE(f.cApp.history()->store()->messages(conversation).size(), 4);
    QTRY_VERIFY(c.chatModel()->message(3).storeId != 0);
    const auto stored = f.cApp.history()->store()->messages(conversation);
    QCOMPARE(stored[2].content, QString("What is this?"));
    QCOMPARE(stored[2].images, QList<ChatImage>{kPicture});
    QCOMPARE(stored[3].content, c.chatModel()->message(3).content); // written when its id came
    QCOMPARE(stored[3].state, QString("done"));
    QCOMPARE(c.chatModel()->message(2).storeId, stored[2].id);
    QCOMPARE(storage.count(), 0);
}

// Quitting while the question with pictures waits for the lock: the ids come before the end,
// and the stopped answer is stored with what it had written.
void TestChatController::quittingWhileAPictureIsStored()
{
    FakeChat f;
    QVERIFY(f.loadForPictures());
    ChatController &c = f.c;
    f.worker->tokens = 1000000;
    const qint64 conversation = c.currentConversation();
    {
        HistoryLock lock(500);
        QVERIFY(lock.held());
        QVERIFY(c.send(QStringLiteral("What is this?"), {kPicture}));
        QTRY_VERIFY(!c.chatModel()->message(3).content.isEmpty());
        QCOMPARE(c.chatModel()->message(3).storeId, 0); // still waiting for the lock
        QVERIFY(f.cApp.shutdown(2000));
    }
    QCOMPARE(c.chatModel()->message(3).state, ChatModel::State::Stopped);
    const auto stored = f.cApp.history()->store()->messages(conversation);
    QCOMPARE(stored.size(), 4);
    QCOMPARE(stored[3].state, QString("stopped"));
    QCOMPARE(stored[3].content, c.chatModel()->message(3).content);
}

// A stored chat opens with its text at once; its pictures' bytes are read on the pool and come
// into the chat after (#31).
void TestChatController::picturesAreReadOffTheGuiThread()
{
    FakeChat f;
    QVERIFY(f.pictureChat());
    ChatController &c = f.c;
    QSignalSpy finished(&c, &ChatController::answerFinished);
    const qint64 conversation = c.currentConversation();
    c.newChat();
    QSignalSpy changed(c.chatModel(), &QAbstractItemModel::dataChanged);
    QVERIFY(c.openConversation(conversation));
    QCOMPARE(c.chatModel()->message(2).content, QString("What is this?"));
    QCOMPARE(c.chatModel()->message(2).images.size(), 1);
    QCOMPARE(c.chatModel()->message(2).images[0].mime, QString("image/png")); // its type at once,
    QVERIFY(c.chatModel()->message(2).images[0].data.isEmpty());              // its bytes not yet
    QTRY_COMPARE(c.chatModel()->message(2).images, QList<ChatImage>{kPicture});
    QCOMPARE(changed.last().at(2).value<QList<int>>(), QList<int>{ChatModel::ImagesRole});
    // Read whole at once (export): the bytes are there when it returns.
    c.newChat();
    QVERIFY(c.openConversation(conversation));
    c.completeChat();
    QCOMPARE(c.chatModel()->message(2).images, QList<ChatImage>{kPicture});
    // Asked again within those milliseconds, the next turn waits for them: no turn without them.
    c.newChat();
    QVERIFY(c.openConversation(conversation));
    QVERIFY(c.send(QStringLiteral("And this?")));
    QCOMPARE(c.chatModel()->message(2).images, QList<ChatImage>{kPicture});
    QTRY_COMPARE(finished.count(), 1);
    const std::vector<shoehorn::ChatMessage> given = f.worker->lastHistory();
    QCOMPARE(given.size(), size_t(5)); // the first turn, the picture's, and this question
    QCOMPARE(given[2].images.size(), size_t(1));
    QVERIFY(given[2].images[0].bytes == kPicture.data.toStdString()); // what the model read
}

// An exported chat with a picture, imported while another process holds the history's write
// lock: the call returns at once, the chat is stored when the lock goes and then opened, and the
// answer comes to whoever asked, unless it went first.
void TestChatController::chatsAreImportedOffTheGuiThread()
{
    FakeChat f;
    QVERIFY(f.load());
    ChatController &c = f.c;
    ChatModel exported;
    ChatModel::Message question = ChatModel::make(ChatModel::Author::User, QStringLiteral("What is this?"));
    question.images = {kPicture};
    exported.appendMessage(question);
    exported.appendMessage(ChatModel::make(ChatModel::Author::Assistant, QStringLiteral("A picture.")));
    QTemporaryDir dir;
    const QString file = dir.filePath("chat.json");
    QVERIFY(!ChatJson::exportToFile(file, {"Imported", {}, {}}, exported.messages(), {}));
    QList<shoehorn::Result<qint64>> answers;
    {
        HistoryLock lock(1000);
        QVERIFY(lock.held());
        c.importConversation(file, this, [&answers](const shoehorn::Result<qint64> &r) { answers.append(r); });
        QVERIFY2(lock.elapsedMs() < 200, qPrintable(QString::number(lock.elapsedMs())));
        QVERIFY(answers.isEmpty());
        QCOMPARE(c.currentConversation(), 0); // nothing opened before it is stored
    }
    QTRY_COMPARE(answers.size(), 1);
    QVERIFY2(answers.first(), answers.first() ? "" : answers.first().error().detail.c_str());
    QCOMPARE(c.currentConversation(), *answers.first());
    QCOMPARE(c.chatModel()->rowCount(), 2);
    QTRY_COMPARE(c.chatModel()->message(0).images, QList<ChatImage>{kPicture}); // its bytes read on the pool
    QCOMPARE(c.conversationTitle(), QString("Imported"));
    // Whoever asked went first: the chat is still stored, listed and opened, no one is called.
    auto *gone = new QObject;
    bool called = false;
    QSignalSpy listed(&c, &ChatController::conversationsChanged);
    c.importConversation(file, gone, [&called](const shoehorn::Result<qint64> &) { called = true; });
    delete gone;
    QTRY_COMPARE(listed.count(), 1);
    QTRY_COMPARE(f.cApp.history()->store()->conversations().size(), 2);
    QVERIFY(c.currentConversation() != *answers.first());
    QVERIFY(!called);
}

// A chat with a picture deleted while another process holds the history's write lock (SQLite
// reads every page of a picture it frees: ten 5 MB photos took 374 ms): the call returns at once,
// the chat is gone from the store once the lock goes, and it cannot be opened meanwhile.
void TestChatController::chatsAreDeletedOffTheGuiThread()
{
    FakeChat f;
    QVERIFY(f.pictureChat());
    ChatController &c = f.c;
    const qint64 chat = c.currentConversation();
    {
        // A message deleted, its chat opened again at once: the row is not read back.
        HistoryLock lock(300);
        QVERIFY(lock.held());
        QVERIFY(c.deleteMessage(3));
        c.newChat();
        QVERIFY(c.openConversation(chat));
        QCOMPARE(c.chatModel()->rowCount(), 3);
    }
    ChatStore *store = f.cApp.history()->store();
    QSignalSpy listed(&c, &ChatController::conversationsChanged);
    QSignalSpy storage(&c, &ChatController::storageFailed);
    {
        HistoryLock lock(1000);
        QVERIFY(lock.held());
        QVERIFY(c.deleteMessage(2)); // the question with the picture
        QVERIFY(c.deleteConversation(chat));
        QVERIFY2(lock.elapsedMs() < 200, qPrintable(QString::number(lock.elapsedMs())));
        QCOMPARE(c.currentConversation(), 0); // it was open: a new chat
        QVERIFY(!c.openConversation(chat));   // going
        QCOMPARE(store->conversations().size(), 1); // not yet
    }
    QTRY_VERIFY(store->conversations().isEmpty());
    QTRY_VERIFY(listed.count() >= 1);
    QCOMPARE(storage.count(), 0); // whichever delete took the message's row, none is an error
}

void TestChatController::chatsAreStoredAndReopened()
{
    qint64 conversation = 0;
    QString answer;
    {
        AppCore cApp;
        ChatController &c = *cApp.chat();
        LoadedModel &lm = *cApp.model();
        configure(lm, 24);
        QVERIFY(cApp.history()->store());
        QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
        lm.openModel(TestFixtures::instance().tinyMoe());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
        QSignalSpy finished(&c, &ChatController::answerFinished);
        QVERIFY(c.send(QStringLiteral("Remember this question")));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        conversation = c.currentConversation();
        QVERIFY(conversation > 0);
        answer = c.chatModel()->message(1).content;
        const auto stored = cApp.history()->store()->messages(conversation);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].content, QString("Remember this question"));
        QCOMPARE(stored[1].content, answer); // the final answer, committed
        QCOMPARE(stored[1].state, QString("done"));
    }
    // A new controller (a restart) lists the chat and shows it again.
    AppCore againApp;
    ChatController &again = *againApp.chat();
    const auto list = againApp.history()->store()->conversations();
    QCOMPARE(list.size(), 1);
    QCOMPARE(list[0].title, QString("Remember this question"));
    QCOMPARE(list[0].modelPath, TestFixtures::instance().tinyMoe());
    QVERIFY(again.openConversation(conversation));
    QCOMPARE(again.chatModel()->rowCount(), 2);
    QCOMPARE(again.chatModel()->message(1).content, answer);
    QVERIFY(again.deleteConversation(conversation));
    QCOMPARE(again.chatModel()->rowCount(), 0);
    QTRY_VERIFY(againApp.history()->store()->conversations().isEmpty()); // deleted on the pool
}

// A chat's title is made from its first question; editing that question made the title (the
// list, an export's file name and heading) stale. A title the user gave stays.
void TestChatController::titleFollowsTheFirstQuestionsEdit()
{
    FakeChat f;
    f.worker->tokens = 2;
    QVERIFY(f.load());
    ChatController &c = f.c;
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("Hello, who are you?")));
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(c.conversationTitle(), QString("Hello, who are you?"));
    QVERIFY(c.editAndResend(0, QStringLiteral("Tell me a story")));
    QTRY_COMPARE(finished.count(), 2);
    QCOMPARE(c.conversationTitle(), QString("Tell me a story")); // read from the store
    QVERIFY(c.renameConversation(c.currentConversation(), QStringLiteral("Stories")));
    QVERIFY(c.editAndResend(0, QStringLiteral("Tell me another")));
    QTRY_COMPARE(finished.count(), 3);
    QCOMPARE(c.conversationTitle(), QString("Stories"));
    // A chat stored before titles lost their Markdown: its title is the old rule's (the question
    // cut at 60, marks kept), and it still follows an edit.
    c.newChat();
    QVERIFY(c.send(QStringLiteral("**Plan** the GPU")));
    QTRY_COMPARE(finished.count(), 4);
    QCOMPARE(c.conversationTitle(), QString("Plan the GPU"));
    QVERIFY(c.renameConversation(c.currentConversation(), QStringLiteral("**Plan** the GPU")));
    QVERIFY(c.editAndResend(0, QStringLiteral("Plan the *CPU*")));
    QTRY_COMPARE(finished.count(), 5);
    QCOMPARE(c.conversationTitle(), QString("Plan the CPU"));
}

// A chat's title is its first question's words: "# Heading **bold** `code` ```python print(1" was
// one, in the list and as the export's file name (found using the window).
void TestChatController::autoTitleHasNoMarkdown_data()
{
    QTest::addColumn<QString>("question");
    QTest::addColumn<QString>("title");
    QTest::newRow("plain") << "Hello, who are you?" << "Hello, who are you?";
    QTest::newRow("heading, bold, code, fence")
        << "# Heading\nSome **bold** and `inline` text:\n```python\nprint(1)\n```"
        << "Heading Some bold and inline text: print(1)";
    QTest::newRow("list and quote") << "> quoted\n- one\n- two\n1. three" << "quoted one two three";
    QTest::newRow("link") << "see [the docs](https://example.org/x) and ![a cat](cat.png)" << "see the docs and a cat";
    QTest::newRow("snake_case and 2 * 3 stay") << "rename my_var to x, 2 * 3 = 6" << "rename my_var to x, 2 * 3 = 6";
    QTest::newRow("lone stars stay") << "what is 2*3 in *.cpp for char *p" << "what is 2*3 in *.cpp for char *p";
    QTest::newRow("paired marks go") << "a ~~struck~~ and *one* and ***three***" << "a struck and one and three";
    QTest::newRow("an emoji at the cut stays whole")
        << QString(58, QChar('a')) + QString::fromUtf8("\xF0\x9F\x98\x80") + "tail"
        << QString(58, QChar('a')) + QChar(0x2026);
    QTest::newRow("only marks") << "**" << "**";
    QTest::newRow("long: cut with an ellipsis")
        << QString(70, QChar('a')) << QString(59, QChar('a')) + QChar(0x2026);
}

void TestChatController::autoTitleHasNoMarkdown()
{
    QFETCH(QString, question);
    QFETCH(QString, title);
    QCOMPARE(ChatController::autoTitle(question), title);
}

QTEST_GUILESS_MAIN(TestChatController)
#include "tst_chatcontroller.moc"
