// The loaded model: opening, cancelling, out-of-memory retries and the settings a load runs
// with (remembered per model, the open chat's sampling, speculation "Auto"), on the tiny
// fixtures and on a fake worker.
#include "appsettings.h"
#include "startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "chatstore.h"
#include "fakeworker.h"
#include "hardwaremonitor.h"
#include "inferenceworker.h"
#include "loadedmodel.h"
#include "modelsettings.h"
#include "smallchat.h"
#include "testfixtures.h"
#include "tuningstore.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <atomic>

using State = LoadedModel::State;

class TestLoadedModel : public QObject
{
    Q_OBJECT
private:
    static void configure(LoadedModel &m, int maxTokens) { configureSmallChat(m, maxTokens, 3); }
    // The app core on a fake worker (no llama.cpp).
    struct FakeCore {
        FakeWorker *worker = new FakeWorker;
        AppCore cApp{std::unique_ptr<Worker>(worker)};
        ChatController &c = *cApp.chat();
        LoadedModel &lm = *cApp.model();
        [[nodiscard]] bool load(const QString &path = QStringLiteral("/models/fake.gguf"))
        {
            QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
            lm.openModel(path);
            return QTest::qWaitFor([&] { return loaded.count() == 1; }, 5000);
        }
    };

private slots:
    void init();
    void badFileFailsCleanly();
    void cancelLoad();
    void openWhileLoadingLoadsTheLatest();
    void outOfMemoryLadderRetries();
    void cancelWhileTheContextIsCreated();
    void ladderExhaustedIsAnError();
    void autoSpeculationFollowsTheTuning();
    void anOpenChatKeepsItsSampling();
};

void TestLoadedModel::init()
{
    startFresh();
}

void TestLoadedModel::badFileFailsCleanly()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    const QString bad = TestFixtures::instance().dir() + "/not-a-model.gguf";
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("definitely not gguf");
    f.close();
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    lm.openModel(bad);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::NotGguf);
    QCOMPARE(lm.state(), State::NoModel);
    QVERIFY(!c.send(QStringLiteral("hi"))); // the chat has no model to answer with
    // A good model still loads afterwards.
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

void TestLoadedModel::cancelLoad()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    // Hold the worker at the start of the load until Cancel has been pressed, so the tiny
    // model cannot finish loading first.
    std::atomic<bool> go{false};
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        for (int i = 0; i < 500 && !go; ++i)
            QThread::msleep(10);
        return std::nullopt;
    });
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyMoe());
    lm.cancelLoad(); // the worker sees the flag at its first progress step
    go = true;
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() + loaded.count() == 1, 20000);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::Cancelled);
    QCOMPARE(lm.state(), State::NoModel);
}

void TestLoadedModel::openWhileLoadingLoadsTheLatest()
{
    // A second open during a load cancels the first and loads the second, once.
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    lm.openModel(TestFixtures::instance().tinyLlama());
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QTest::qWait(100);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(lm.model().architecture, QString("qwen3moe"));
    QCOMPARE(lm.state(), State::Ready);
}

void TestLoadedModel::outOfMemoryLadderRetries()
{
    // The first three attempts fail for memory (weights twice, then the context), as llama.cpp
    // reports it; the fourth works. The controller keeps the settings that worked.
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    auto ls = lm.loadSettings();
    ls.gpuLayers = -1;
    lm.setLoadSettings(ls);
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
    QSignalSpy retrying(&lm, &LoadedModel::loadRetrying);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(retrying.count(), 3);
    const auto first = retrying.at(0).first().value<shoehorn::OomRetry>();
    QCOMPARE(QString::fromStdString(first.failure.buffer), QString("CUDA0"));
    QCOMPARE(first.failure.bytes, 2147483648ull);
    QCOMPARE(first.step, shoehorn::LadderStep::MoreExpertsOnCpu);
    QCOMPARE(tried.size(), size_t(4));
    QVERIFY(tried[1].load.cpuMoeLayers > tried[0].load.cpuMoeLayers);
    // What finally loaded is what the controller now uses.
    QCOMPARE(lm.loadSettings().cpuMoeLayers, tried.back().load.cpuMoeLayers);
    QCOMPARE(lm.model().load.cpuMoeLayers, tried.back().load.cpuMoeLayers);
    QCOMPARE(lm.state(), State::Ready);
}

// Cancel while the context is created (after the weights loaded): nothing stays loaded.
void TestLoadedModel::cancelWhileTheContextIsCreated()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int stage, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        if (stage == 1) // the weights are in; the context is next
            QMetaObject::invokeMethod(&lm, [&lm] { lm.cancelLoad(); }, Qt::BlockingQueuedConnection);
        return std::nullopt;
    });
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::Cancelled);
    QCOMPARE(loaded.count(), 0);
    QCOMPARE(lm.state(), State::NoModel);
    QVERIFY(!lm.hasModel());
}

void TestLoadedModel::ladderExhaustedIsAnError()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm, 8);
    int attempts = 0;
    qobject_cast<InferenceWorker *>(cApp.session()->worker())->setFailureInjector([&](int, const shoehorn::PlanSettings &) -> std::optional<shoehorn::Error> {
        ++attempts;
        return shoehorn::Error{shoehorn::ErrorCode::OutOfMemory, "failed to allocate CPU buffer of size 1"};
    });
    auto ls = lm.loadSettings();
    ls.gpuLayers = -1;
    lm.setLoadSettings(ls);
    auto cs = lm.contextSettings();
    cs.contextSize = 8192;
    lm.setContextSettings(cs);
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    QSignalSpy retrying(&lm, &LoadedModel::loadRetrying);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.first().at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::OutOfMemory);
    QVERIFY(retrying.count() >= 2);
    QCOMPARE(attempts, retrying.count() + 1);
    QCOMPARE(lm.state(), State::NoModel);
}

// Speculation "Auto" (#29): the model loads with what auto-tune stored as fastest for the file on
// this machine, its MTP layers loaded for MTP; with nothing stored, or chosen off, it is off.
void TestLoadedModel::autoSpeculationFollowsTheTuning()
{
    FakeCore f;
    const QString path = QStringLiteral("/models/fake.gguf");
    QTRY_VERIFY(f.cApp.hardware()->hasProbed());
    ModelSettings s = f.lm.modelSettings();
    s.speculationAuto = true;
    f.lm.setModelSettings(s);
    ModelSettingsStore::save(path, s);
    QVERIFY(f.load());
    QVERIFY(!f.lm.model().context.speculation.on()); // nothing tuned yet: off
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
    QSignalSpy loaded(&f.lm, &LoadedModel::modelLoaded);
    f.lm.reload();
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(f.lm.model().context.speculation.types, std::string("draft-mtp"));
    QCOMPARE(f.lm.model().context.speculation.draftMax, 2);
    QVERIFY(f.lm.model().load.mtpLayers);
    QVERIFY(f.lm.modelSettings().speculationAuto); // still Auto, not the value it resolved to
    // Chosen off by the user: the tuning does not matter.
    s = f.lm.modelSettings();
    s.speculationAuto = false;
    s.context.speculation = {};
    f.lm.setModelSettings(s);
    f.lm.reload();
    QTRY_COMPARE(loaded.count(), 2);
    QVERIFY(!f.lm.model().context.speculation.on());
    QVERIFY(!f.lm.model().load.mtpLayers);
}

// The open chat's sampling settings go with it whichever model it runs on; a new chat takes
// the model's own; an edit while a chat is open is the chat's (and the model's) from then on.
void TestLoadedModel::anOpenChatKeepsItsSampling()
{
    FakeCore f;
    f.worker->tokens = 2;
    const QString a = QStringLiteral("/models/a.gguf"), b = QStringLiteral("/models/b.gguf");
    ModelSettings forB = f.lm.modelSettings();
    forB.generation.sampling.temperature = 0.9f;
    ModelSettingsStore::save(b, forB);
    QVERIFY(f.load(a));
    ModelSettings s = f.lm.modelSettings();
    s.generation.sampling.temperature = 0.3f;
    f.lm.setModelSettings(s);
    QSignalSpy finished(&f.c, &ChatController::answerFinished);
    QVERIFY(f.c.send(QStringLiteral("hello")));
    QTRY_COMPARE(finished.count(), 1);
    const qint64 chat = f.c.currentConversation();
    QVERIFY(chat > 0);

    QVERIFY(f.load(b)); // the chat goes on with model b, at its own temperature
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.3f);
    QCOMPARE(f.c.generationOptions().sampling.temperature, 0.3f);
    // What b remembers (written after the load) is still b's own.
    QTest::qWait(2 * AppSettings::kWriteAfterLoadMs);
    AppSettings::waitForWrites();
    const std::optional<ModelSettings> stored = ModelSettingsStore::load(b);
    QVERIFY(stored);
    QCOMPARE(stored->generation.sampling.temperature, 0.9f);

    f.c.newChat(); // a new chat on b: b's own, at once and after a load
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.9f);
    QVERIFY(f.load(b));
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.9f);

    QVERIFY(f.c.openConversation(chat)); // back to the chat: its own again, before any load
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.3f);
    s = f.lm.modelSettings();
    s.generation.sampling.temperature = 0.5f; // edited while the chat is open
    f.lm.setModelSettings(s);
    QVERIFY(f.load(a));
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.5f);
    f.c.newChat();
    QVERIFY(f.c.openConversation(chat)); // stored with the chat
    QCOMPARE(f.lm.modelSettings().generation.sampling.temperature, 0.5f);
}

QTEST_GUILESS_MAIN(TestLoadedModel)
#include "tst_loadedmodel.moc"
