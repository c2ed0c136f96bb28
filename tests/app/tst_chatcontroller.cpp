// The controller and its worker thread, on the tiny fixtures.
#include "appsettings.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "fakeworker.h"
#include "hardwaremonitor.h"
#include "tuningstore.h"
#include "inferenceworker.h"
#include "smallchat.h"
#include "testfixtures.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QtTest>

using State = ChatController::State;

class TestChatController : public QObject
{
    Q_OBJECT
private:
    static void configure(ChatController &c, int maxTokens);
    // A controller on a fake worker (no llama.cpp), with a fake model loaded.
    struct FakeChat {
        FakeWorker *worker = new FakeWorker;
        AppCore cApp{std::unique_ptr<Worker>(worker)};
        ChatController &c = *cApp.chat();
        [[nodiscard]] bool load()
        {
            QSignalSpy loaded(&c, &ChatController::modelLoaded);
            c.openModel(QStringLiteral("/models/fake.gguf"));
            return QTest::qWaitFor([&] { return loaded.count() == 1; }, 5000);
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
    void badFileFailsCleanly();
    void cancelLoad();
    void destroyWhileGenerating();
    void openWhileLoadingLoadsTheLatest();
    void outOfMemoryLadderRetries();
    void ladderExhaustedIsAnError();
    void cancelWhileTheContextIsCreated();
    void chatsAreStoredAndReopened();
    void autoSpeculationFollowsTheTuning();
};

void TestChatController::init()
{
    // Per-model settings are remembered; every test starts from none.
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
    QFile::remove(ChatStore::defaultPath());
}

void TestChatController::configure(ChatController &c, int maxTokens)
{
    configureSmallChat(c, maxTokens, 3);
}

void TestChatController::loadThenStreamInOrder()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 400);
    QAbstractItemModelTester tester(c.chatModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    QSignalSpy progress(&c, &ChatController::loadProgress);
    c.openModel(TestFixtures::instance().tinyMoe());
    QCOMPARE(c.state(), State::Loading);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(c.state(), State::Ready);
    QVERIFY(progress.count() >= 1);
    QCOMPARE(c.model().architecture, QString("qwen3moe"));
    QCOMPARE(c.model().contextSize, 1024);

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
    QCOMPARE(c.state(), State::Generating);
    QVERIFY(!c.send(QStringLiteral("busy"))); // one answer at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const qint64 answerMs = answering.elapsed();
    const auto stats = finished.first().first().value<shoehorn::GenerationStats>();
    QVERIFY(stats.generatedTokens > 0);
    QCOMPARE(c.state(), State::Ready);
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
    QCOMPARE(c.state(), State::Ready);
    const QString kept = c.chatModel()->message(1).content;
    QVERIFY(kept.startsWith("w0 "));
    // Stored as stopped, with what was written.
    const auto stored = c.store()->messages(c.currentConversation());
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
    QVERIFY(c.shutdown(2000));
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Stopped);
    const auto stored = c.store()->messages(conversation);
    QCOMPARE(stored.at(1).state, QString("stopped"));
    QCOMPARE(stored.at(1).content, c.chatModel()->message(1).content);
}

void TestChatController::fatalDecodeIsAnError()
{
    FakeChat f;
    f.worker->failAfter = 3;
    QVERIFY(f.load());
    ChatController &c = f.c;
    QSignalSpy failed(&c, &ChatController::generationFailed);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(finished.count(), 0);
    QCOMPARE(failed.first().first().value<shoehorn::Error>().code, shoehorn::ErrorCode::DecodeFailed);
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Failed);
    QCOMPARE(c.chatModel()->message(1).content, QString("w0 w1 w2 ")); // what came before stays
    QCOMPARE(c.store()->messages(c.currentConversation()).at(1).state, QString("failed"));
    QCOMPARE(c.state(), State::Ready);
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
    QVERIFY2(storage.first().at(1).toString().contains("readonly"), qPrintable(storage.first().at(1).toString()));
    QCOMPARE(c.store()->messages(c.currentConversation()).at(1).versions.size(), 0); // nothing half-written
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
    configure(c, 24);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    c.openModel(TestFixtures::instance().tinyMoe());
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

void TestChatController::badFileFailsCleanly()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    const QString bad = TestFixtures::instance().dir() + "/not-a-model.gguf";
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("definitely not gguf");
    f.close();
    QSignalSpy failed(&c, &ChatController::loadFailed);
    c.openModel(bad);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::NotGguf);
    QCOMPARE(c.state(), State::NoModel);
    QVERIFY(!c.send(QStringLiteral("hi")));
    // A good model still loads afterwards.
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    c.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

void TestChatController::cancelLoad()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    // Hold the worker at the start of the load until Cancel has been pressed, so the tiny
    // model cannot finish loading first.
    std::atomic<bool> go{false};
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        for (int i = 0; i < 500 && !go; ++i)
            QThread::msleep(10);
        return std::nullopt;
    });
    QSignalSpy failed(&c, &ChatController::loadFailed);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    c.openModel(TestFixtures::instance().tinyMoe());
    c.cancelLoad(); // the worker sees the flag at its first progress step
    go = true;
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() + loaded.count() == 1, 20000);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::Cancelled);
    QCOMPARE(c.state(), State::NoModel);
}

void TestChatController::destroyWhileGenerating()
{
    auto app = std::make_unique<AppCore>();
    ChatController *c = app->chat();
    configure(*c, -1);
    QSignalSpy loaded(c, &ChatController::modelLoaded);
    c->openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QVERIFY(c->send(QStringLiteral("go on forever")));
    QTRY_VERIFY_WITH_TIMEOUT(c->state() == State::Generating, 5000);
    QTest::qWait(20);
    QElapsedTimer t;
    t.start();
    app.reset(); // cancels, quits and joins the thread
    qInfo("destroyed while generating in %lld ms", t.elapsed());
    QVERIFY(t.elapsed() < 2000);
}

void TestChatController::openWhileLoadingLoadsTheLatest()
{
    // A second open during a load cancels the first and loads the second, once.
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    QSignalSpy failed(&c, &ChatController::loadFailed);
    c.openModel(TestFixtures::instance().tinyLlama());
    c.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QTest::qWait(100);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(c.model().architecture, QString("qwen3moe"));
    QCOMPARE(c.state(), State::Ready);
}

void TestChatController::outOfMemoryLadderRetries()
{
    // The first three attempts fail for memory (weights twice, then the context), as llama.cpp
    // reports it; the fourth works. The controller keeps the settings that worked.
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    auto ls = c.loadSettings();
    ls.gpuLayers = -1;
    c.setLoadSettings(ls);
    int attempts = 0;
    std::vector<shoehorn::PlanSettings> tried;
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int stage, const shoehorn::PlanSettings &s) -> std::optional<shoehorn::Error> {
        if (stage == 0)
            tried.push_back(s);
        const bool fail = (stage == 0 && attempts < 2) || (stage == 1 && attempts == 2);
        if (stage == 1 || fail)
            ++attempts;
        if (fail)
            return shoehorn::Error{shoehorn::ErrorCode::OutOfMemory,
                                   "alloc_tensor_range: failed to allocate CUDA0 buffer of size 2147483648"};
        return std::nullopt;
    });
    QSignalSpy retrying(&c, &ChatController::loadRetrying);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    c.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(retrying.count(), 3);
    const auto first = retrying.at(0).first().value<shoehorn::OomRetry>();
    QCOMPARE(QString::fromStdString(first.failure.buffer), QString("CUDA0"));
    QCOMPARE(first.failure.bytes, 2147483648ull);
    QCOMPARE(first.step, shoehorn::LadderStep::MoreExpertsOnCpu);
    QCOMPARE(tried.size(), size_t(4));
    QVERIFY(tried[1].load.cpuMoeLayers > tried[0].load.cpuMoeLayers);
    // What finally loaded is what the controller now uses.
    QCOMPARE(c.loadSettings().cpuMoeLayers, tried.back().load.cpuMoeLayers);
    QCOMPARE(c.model().load.cpuMoeLayers, tried.back().load.cpuMoeLayers);
    QCOMPARE(c.state(), State::Ready);
}

// Cancel while the context is created (after the weights loaded): nothing stays loaded.
void TestChatController::cancelWhileTheContextIsCreated()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int stage, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        if (stage == 1) // the weights are in; the context is next
            QMetaObject::invokeMethod(&c, [&c] { c.cancelLoad(); }, Qt::BlockingQueuedConnection);
        return std::nullopt;
    });
    QSignalSpy failed(&c, &ChatController::loadFailed);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    c.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::Cancelled);
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(c.state(), State::NoModel);
    QVERIFY(!c.hasModel());
}

void TestChatController::ladderExhaustedIsAnError()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(c, 8);
    int attempts = 0;
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        ++attempts;
        return shoehorn::Error{shoehorn::ErrorCode::OutOfMemory, "failed to allocate CPU buffer of size 1"};
    });
    auto ls = c.loadSettings();
    ls.gpuLayers = -1;
    c.setLoadSettings(ls);
    auto cs = c.contextSettings();
    cs.contextSize = 8192;
    c.setContextSettings(cs);
    QSignalSpy failed(&c, &ChatController::loadFailed);
    QSignalSpy retrying(&c, &ChatController::loadRetrying);
    c.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::OutOfMemory);
    QVERIFY(retrying.count() >= 2);
    QCOMPARE(attempts, retrying.count() + 1);
    QCOMPARE(c.state(), State::NoModel);
}

void TestChatController::chatsAreStoredAndReopened()
{
    qint64 conversation = 0;
    QString answer;
    {
        AppCore cApp;
        ChatController &c = *cApp.chat();
        configure(c, 24);
        QVERIFY(c.store());
        QSignalSpy loaded(&c, &ChatController::modelLoaded);
        c.openModel(TestFixtures::instance().tinyMoe());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
        QSignalSpy finished(&c, &ChatController::answerFinished);
        QVERIFY(c.send(QStringLiteral("Remember this question")));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        conversation = c.currentConversation();
        QVERIFY(conversation > 0);
        answer = c.chatModel()->message(1).content;
        const auto stored = c.store()->messages(conversation);
        QCOMPARE(stored.size(), 2);
        QCOMPARE(stored[0].content, QString("Remember this question"));
        QCOMPARE(stored[1].content, answer); // the final answer, committed
        QCOMPARE(stored[1].state, QString("done"));
    }
    // A new controller (a restart) lists the chat and shows it again.
    AppCore againApp;
    ChatController &again = *againApp.chat();
    const auto list = again.store()->conversations();
    QCOMPARE(list.size(), 1);
    QCOMPARE(list[0].title, QString("Remember this question"));
    QCOMPARE(list[0].modelPath, TestFixtures::instance().tinyMoe());
    QVERIFY(again.openConversation(conversation));
    QCOMPARE(again.chatModel()->rowCount(), 2);
    QCOMPARE(again.chatModel()->message(1).content, answer);
    QVERIFY(again.deleteConversation(conversation));
    QCOMPARE(again.chatModel()->rowCount(), 0);
    QVERIFY(again.store()->conversations().isEmpty());
}

// Speculation "Auto" (#29): the model loads with what auto-tune stored as fastest for the file on
// this machine, its MTP layers loaded for MTP; with nothing stored, or chosen off, it is off.
void TestChatController::autoSpeculationFollowsTheTuning()
{
    FakeChat f;
    const QString path = QStringLiteral("/models/fake.gguf");
    QTRY_VERIFY(f.cApp.hardware()->hasProbed());
    ModelSettings s = f.c.modelSettings();
    s.speculationAuto = true;
    f.c.setModelSettings(s);
    ModelSettingsStore::save(path, s);
    QVERIFY(f.load());
    QVERIFY(!f.c.model().context.speculation.on()); // nothing tuned yet: off
    // A tuning that found MTP with two drafts fastest.
    TuneReport report;
    shoehorn::TuneMeasurement plain, mtp;
    plain.ok = mtp.ok = true;
    plain.candidate.label = "plain";
    mtp.candidate.label = "mtp";
    mtp.candidate.chatPath = true;
    mtp.candidate.settings.context.speculation.types = "draft-mtp";
    mtp.candidate.settings.context.speculation.draftMax = 2;
    report.result.measurements = {plain, mtp};
    report.result.best = 1;
    TuningStore::save(path, f.cApp.hardware()->machineId(), report);
    QSignalSpy loaded(&f.c, &ChatController::modelLoaded);
    f.c.reload();
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(f.c.model().context.speculation.types, std::string("draft-mtp"));
    QCOMPARE(f.c.model().context.speculation.draftMax, 2);
    QVERIFY(f.c.model().load.mtpLayers);
    QVERIFY(f.c.modelSettings().speculationAuto); // still Auto, not the value it resolved to
    // Chosen off by the user: the tuning does not matter.
    s = f.c.modelSettings();
    s.speculationAuto = false;
    s.context.speculation = {};
    f.c.setModelSettings(s);
    f.c.reload();
    QTRY_COMPARE(loaded.count(), 2);
    QVERIFY(!f.c.model().context.speculation.on());
    QVERIFY(!f.c.model().load.mtpLayers);
}

QTEST_GUILESS_MAIN(TestChatController)
#include "tst_chatcontroller.moc"
