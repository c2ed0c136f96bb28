// Planning without widgets: the GGUF read off the GUI thread, the machine's memory with what
// the loaded model holds counted as free, settings per model.
#include "appsettings.h"
#include "appcore.h"
#include "apicontroller.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "fakeworker.h"
#include "fixtures.h"
#include "hardwaremonitor.h"
#include "offloadcontroller.h"
#include "plantargets.h"
#include "testfixtures.h"
#include "testsettings.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

#include <atomic>
#include <tuple>

using namespace shoehorn;

class TestOffloadController : public QObject
{
    Q_OBJECT
private:
    static HardwareInfo machine(uint64_t totalGiB, uint64_t availableGiB, uint64_t ownGiB)
    {
        HardwareInfo hw;
        hw.ramTotalBytes = totalGiB * GiB;
        hw.ramAvailableBytes = availableGiB * GiB;
        hw.physicalCores = 8;
        hw.process = {ownGiB * GiB, 0, true};
        return hw;
    }

    // The 30B shape (18 GiB of RAM) with every layer on the CPU and 4096 cells: its plan depends
    // on the machine's RAM alone. False if the header was not read.
    static bool planOnTheCpu(OffloadController &c, const QString &path)
    {
        c.setModelPath(path);
        if (!QTest::qWaitFor([&] { return c.info().has_value(); }, 10000))
            return false;
        ModelSettings s = c.settings();
        s.load.gpuLayers = 0;
        s.context.contextSize = 4096;
        c.setSettings(s);
        return true;
    }

private slots:
    void initTestCase() { isolateSettings(); }
    void init() { AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear(); }
    void readsTheModelInTheBackground();
    void loadedModelDoesNotCountAgainstItself();
    void aLoadDoesNotCountAgainstItself_data();
    void aLoadDoesNotCountAgainstItself();
    void heldMemoryIsMeasuredOnARealLoad();
    void noDryRunBehindTheModelsLoad();
    void apiSlotsAreInTheOneContext();
    void draftModelIsPlanned();
    void cardSeenTwiceOffersItsBackends();
};

void TestOffloadController::readsTheModelInTheBackground()
{
    AppCore chatApp{std::make_unique<FakeWorker>()};
    LoadedModel &lm = *chatApp.model();
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    QSignalSpy changed(&c, &OffloadController::modelChanged);
    c.setModelPath(TestFixtures::instance().qwen3_30b());
    QVERIFY(c.inspecting() || c.info()); // asked, not necessarily answered yet
    QTRY_VERIFY(c.info().has_value());
    QCOMPARE(QString::fromStdString(c.info()->architecture), QString("qwen3moe"));
    QVERIFY(changed.count() >= 1);
    c.setModelPath(TestFixtures::instance().dir() + "/does-not-exist.gguf");
    // The reading thread is done before its result is taken in (no events processed here): the
    // controller is still inspecting until then, never "done" with neither a model nor an error.
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
    QVERIFY(c.inspecting());
    QTRY_VERIFY(!c.inspecting());
    QVERIFY(!c.info());
    QCOMPARE(c.inspectError().code, ErrorCode::FileNotFound); // typed: the window words it (ErrorText)
}

void TestOffloadController::loadedModelDoesNotCountAgainstItself()
{
    // The 30B shape needs about 18 GiB of RAM. The machine has 64 GiB, of which 4 GiB are
    // available once the model is loaded: this process held 1 GiB before the load and 21 GiB
    // since, so the model holds 20 GiB.
    std::atomic<uint64_t> own{1}; // before the monitor: a probe may outlive it
    auto *worker = new FakeWorker;
    worker->held.before = {1 * GiB, 0, true};
    AppCore chatApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *chatApp.model();
    chatApp.hardware()->setProbe([&own] { return machine(64, 4, own); });
    QSignalSpy probed(chatApp.hardware(), &HardwareMonitor::changed);
    chatApp.hardware()->refresh();
    QTRY_VERIFY(probed.count() >= 1);
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    const QString path = TestFixtures::instance().qwen3_30b();
    QVERIFY(planOnTheCpu(c, path));
    QCOMPARE(c.targets()->current().ramAvailableBytes, 4 * GiB);
    QVERIFY(!c.plan().fits()); // not loaded: 4 GiB is all there is

    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    c.loadOrReload();
    QTRY_COMPARE(loaded.count(), 1);
    QVERIFY(c.isLoadedModel());
    own = 21;
    probed.clear();
    chatApp.hardware()->refresh();
    QTRY_VERIFY(probed.count() >= 1);
    QCOMPARE(c.targets()->current().ramAvailableBytes, 24 * GiB);
    QVERIFY2(c.plan().fits(), "the loaded model shows as not fitting");
    // The two parts of RAM: planned, and the process's growth since just before the load.
    const auto parts = c.ramParts();
    QVERIFY(parts.loaded);
    QCOMPARE(parts.actualAnonymous, 20 * GiB);
    QCOMPARE(parts.plannedAnonymous + parts.plannedFile, c.plan().ram.use.total());
    QVERIFY(parts.plannedFile > 0); // mmap: the weights used in place are file pages
    // Capped at what the machine has.
    own = 100;
    probed.clear();
    chatApp.hardware()->refresh();
    QTRY_VERIFY(probed.count() >= 1);
    QCOMPARE(c.targets()->current().ramAvailableBytes, 64 * GiB);
}

// While a load runs, the memory it takes is the plan's own: the panel plans against the machine
// as it was when the load began (a real load of a 30B MoE took 12 GiB of the 23 available before
// it ended, and the panel said "does not fit" for the model loading).
void TestOffloadController::aLoadDoesNotCountAgainstItself_data()
{
    QTest::addColumn<bool>("reload");     // the first load, or a load replacing a loaded model
    QTest::addColumn<bool>("probeFirst"); // the machine was probed before the load began
    QTest::newRow("first load") << false << true;
    QTest::newRow("reload") << true << true;
    QTest::newRow("load before the first probe") << false << false;
}

void TestOffloadController::aLoadDoesNotCountAgainstItself()
{
    QFETCH(bool, reload);
    QFETCH(bool, probeFirst);
    // 64 GiB, 30 available with no model. A loaded model holds 20 (the process: 1 GiB before
    // it, 21 with it); the load in progress has taken 16 of 20.
    std::atomic<uint64_t> own{1}, available{30};
    auto *worker = new FakeWorker;
    worker->held.before = {1 * GiB, 0, true};
    AppCore chatApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *chatApp.model();
    HardwareMonitor hardware; // probed only when this test says
    hardware.setProbe([&] { return machine(64, available, own); });
    QSignalSpy probed(&hardware, &HardwareMonitor::changed);
    auto probeAgain = [&] {
        probed.clear();
        hardware.refresh();
        QTRY_VERIFY(probed.count() >= 1);
    };
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    const QString path = TestFixtures::instance().qwen3_30b();
    if (reload) {
        lm.openModel(path);
        QTRY_COMPARE(loaded.count(), 1);
        own = 21;
        available = 10;
    }
    if (probeFirst)
        probeAgain();
    OffloadController c(&lm, &hardware, chatApp.api(), chatApp.vision());
    QVERIFY(planOnTheCpu(c, path));
    if (probeFirst)
        QCOMPARE(c.targets()->current().ramAvailableBytes, 30 * GiB);

    worker->loadMs = 60000; // until cancelled
    c.loadOrReload();
    QTRY_COMPARE(lm.state(), LoadedModel::State::Loading);
    if (!probeFirst)
        probeAgain(); // the first probe, as the load begins
    // The old model is freed, 16 GiB of the new one are in.
    own = 17;
    available = 14;
    probeAgain();
    QCOMPARE(c.targets()->current().ramAvailableBytes, 30 * GiB);
    QVERIFY2(c.plan().fits(), "the model being loaded shows as not fitting");

    // Once a load ends the machine is probed again: the new model holds 20 GiB and another program
    // freed 2 meanwhile, which only a probe after the load can know.
    probed.clear();
    lm.cancelLoad();
    QTRY_VERIFY(lm.state() != LoadedModel::State::Loading);
    QTRY_VERIFY(probed.count() >= 1); // the cancelled load's own probe, before the values change
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
    worker->loadMs = 0;
    own = 21;
    available = 12;
    probed.clear();
    c.loadOrReload();
    QTRY_COMPARE(loaded.count(), reload ? 2 : 1);
    QTRY_VERIFY(probed.count() >= 1);
    QCOMPARE(c.targets()->current().ramAvailableBytes, 32 * GiB);
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000)); // no probe outlives the atomics
}

void TestOffloadController::heldMemoryIsMeasuredOnARealLoad()
{
    // The real worker notes the process's memory before the load; once an answer has used the
    // compute buffers and the KV cache, the model's pages are resident and counted as held.
    // Background work of earlier tests (reading a model's header, a projector's dry run) must not
    // come and go between the two snapshots of the process's memory.
    QThreadPool::globalInstance()->waitForDone();
    AppCore chatApp;
    ChatController &chat = *chatApp.chat();
    LoadedModel &lm = *chatApp.model();
    // ...nor the first hardware probe, which the app core starts at once (its first look at the
    // devices allocates for a moment).
    QTRY_VERIFY(chatApp.hardware()->hasProbed());
    QVERIFY(QThreadPool::globalInstance()->waitForDone(10000));
    auto ls = lm.loadSettings();
    ls.loadMode = LoadMode::NoMmap; // the weights too are anonymous memory
    lm.setLoadSettings(ls);
    auto o = chat.generationOptions();
    o.maxTokens = 16;
    lm.setGenerationOptions(o);
    // Weights of 64 MiB: well above what the process's heap moves by on its own (other threads'
    // arenas are returned to the system at their own time, some MiB at once).
    auto spec = shoehorn::fixtures::tinyLlama();
    spec.embd = 512;
    spec.headDim = 128;
    spec.ff = 1536;
    spec.layers = 8;
    spec.name = "held";
    const QString model = TestFixtures::instance().dir() + "/held.gguf";
    QVERIFY(shoehorn::fixtures::write(spec, model.toStdString()).empty());
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(model);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    const auto summary = loaded.first().first().value<ModelSummary>();
    QVERIFY(summary.held.before.known);
    QSignalSpy finished(&chat, &ChatController::answerFinished);
    QVERIFY(chat.send("hello"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    const uint64_t held = summary.held.ramBytes(processMemory());
    const uint64_t weights = summary.measured.ram.use.weights();
    qInfo("held %llu bytes; llama.cpp: weights %llu, KV %llu, compute %llu", qulonglong(held), qulonglong(weights),
          qulonglong(summary.measured.ram.use.kv()), qulonglong(summary.measured.ram.use.compute));
    // Read into anonymous memory (--no-mmap). The process's heap moves by some MiB on its own
    // between the two snapshots (other threads' arenas), so a tenth of the weights is slack; a
    // load whose weights were not counted (file pages, or no snapshot) holds far less.
    QVERIFY2(held >= weights / 10 * 9, qPrintable(QString("held %1 < 90% of weights %2").arg(held).arg(weights)));
    // Through the planning core, as the panel shows it: no file pages with --no-mmap.
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    QSignalSpy probed(chatApp.hardware(), &HardwareMonitor::changed);
    chatApp.hardware()->refresh();
    QTRY_VERIFY(probed.count() >= 1);
    c.setModelPath(model);
    QTRY_VERIFY(c.info().has_value());
    const auto parts = c.ramParts();
    QVERIFY(parts.loaded);
    QCOMPARE(parts.plannedFile, 0ull);
    QVERIFY(parts.actualAnonymous >= weights / 10 * 9);
    qInfo("planned %llu anonymous, actual %llu", qulonglong(parts.plannedAnonymous), qulonglong(parts.actualAnonymous));
}

// The dry run of the model that is loading would wait for the load on the inference thread (the
// panel said "Checking with llama.cpp's dry run..." for the whole load) and measure what the load
// does: it runs once the load has ended, or failed.
void TestOffloadController::noDryRunBehindTheModelsLoad()
{
    for (const bool fails : {false, true}) {
        auto *worker = new FakeWorker;
        worker->loadMs = 1500;
        AppCore chatApp{std::unique_ptr<Worker>(worker)};
        LoadedModel &lm = *chatApp.model();
        OffloadController &c = *chatApp.offload(); // the one controller that asks (a second would ask too)
        QTemporaryDir dir;
        const QString path = fails ? dir.filePath("bad.gguf") : TestFixtures::instance().tinyMoe();
        if (fails)
            QVERIFY(QFile::copy(TestFixtures::instance().tinyMoe(), path)); // FakeWorker fails "bad" paths
        c.setModelPath(path);
        QTRY_VERIFY(c.info().has_value());
        c.loadOrReload();
        QTRY_COMPARE(lm.state(), LoadedModel::State::Loading);
        QTest::qWait(1000); // past the check's 700 ms delay, within the load
        QVERIFY(!c.exactCheckRunning());
        QTRY_VERIFY(lm.state() != LoadedModel::State::Loading);
        QTRY_COMPARE(worker->exactRuns.load(), 1); // after the load
        QTest::qWait(1000);
        QCOMPARE(worker->exactRuns.load(), 1);
    }
}

// The local API's slots are part of the model's one context (a unified KV cache): the plan is
// the same with the API off and on, and counts the slots the next load creates.
void TestOffloadController::apiSlotsAreInTheOneContext()
{
    AppCore chatApp;
    LoadedModel &lm = *chatApp.model();
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyApi());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    c.setModelPath(TestFixtures::instance().tinyApi());
    QTRY_VERIFY(c.info().has_value());
    QVERIFY(c.planSettings().serverLoop);
    QCOMPARE(c.planSettings().apiSlots, chatApp.api()->config().parallel);
    const MemoryPlan off = c.plan();
    const MemoryPlan &actual = lm.model().measured; // what llama.cpp allocated at the load
    QVERIFY2(shoehorn::planError(off, actual) < 0.03, qPrintable(QString::number(shoehorn::planError(off, actual))));

    ApiConfig cfg;
    cfg.port = 0;
    cfg.parallel = 3;
    chatApp.api()->setConfig(cfg);
    QCOMPARE(c.planSettings().apiSlots, 3);
    const MemoryPlan three = c.plan();
    chatApp.api()->start();
    QTRY_COMPARE_WITH_TIMEOUT(chatApp.api()->state(), ApiController::State::On, 20000);
    QCOMPARE(c.planSettings().apiSlots, 3);
    for (const MemoryPlan &p : {three, c.plan()}) {
        QCOMPARE(p.ram.use.kv(), off.ram.use.kv());
        QCOMPARE(p.ram.use.weights(), off.ram.use.weights());
        QCOMPARE(p.contextSize, off.contextSize);
    }
    // Plan against what llama.cpp allocated for the loaded model (its one context, whatever the
    // API does): within 3 %, with the API on.
    QVERIFY2(shoehorn::planError(c.plan(), actual) < 0.03,
             qPrintable(QString::number(shoehorn::planError(c.plan(), actual))));
    chatApp.api()->stop();
    QTRY_COMPARE(chatApp.api()->state(), ApiController::State::Off);
    QCOMPARE(c.plan().ram.use.total(), three.ram.use.total());
}

// A draft model named in the speculation setting: read off the GUI thread, then its weights, KV
// and compute are in the plan (the gauges' speculation segments); MTP on a model with an MTP
// layer needs no second file.
void TestOffloadController::draftModelIsPlanned()
{
    AppCore chatApp{std::make_unique<FakeWorker>()};
    LoadedModel &lm = *chatApp.model();
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    c.setModelPath(TestFixtures::instance().llama3_8b());
    QTRY_VERIFY(c.info().has_value());
    ModelSettings s = c.settings();
    QCOMPARE(c.plan().ram.use.draft(), 0u);
    s.context.speculation.draftModel = TestFixtures::instance().llama32_3b().toStdString();
    c.setSettings(s);
    QTRY_VERIFY(c.plan().ram.use.draftWeights + (c.plan().gpus.empty() ? 0 : c.plan().gpus[0].use.draftWeights) > 0);
    uint64_t weights = c.plan().ram.use.draftWeights, kv = c.plan().ram.use.draftKv;
    for (const auto &g : c.plan().gpus) {
        weights += g.use.draftWeights;
        kv += g.use.draftKv;
    }
    QVERIFY2(weights > GiB, qPrintable(QString::number(weights))); // Llama 3.2 3B: about 1.9 GiB
    QVERIFY(kv > 0);
    s.context.speculation = {};
    c.setSettings(s);
    QCOMPARE(c.plan().ram.use.draft(), 0u);

    c.setModelPath(TestFixtures::instance().qwen35_35bMtp());
    QTRY_VERIFY(c.info().has_value() && c.info()->mtpLayers == 1);
    s = c.settings();
    s.context.speculation.types = "draft-mtp";
    s.load.mtpLayers = true;
    c.setSettings(s);
    uint64_t mtpKv = c.plan().ram.use.draftKv;
    for (const auto &g : c.plan().gpus)
        mtpKv += g.use.draftKv;
    QVERIFY(mtpKv > 0);
}

void TestOffloadController::cardSeenTwiceOffersItsBackends()
{
    AppCore chatApp{std::make_unique<FakeWorker>()};
    LoadedModel &lm = *chatApp.model();
    // An NVIDIA card through CUDA and Vulkan (one PCI id), and an AMD card through Vulkan.
    chatApp.hardware()->setProbe([] {
        HardwareInfo hw = machine(64, 48, 1);
        std::vector<GpuInfo> gpus;
        for (const auto &[name, card, what] : {std::tuple{"CUDA0", "01", "NVIDIA GeForce RTX 3060"},
                                               std::tuple{"Vulkan0", "02", "AMD Radeon RX 6600"},
                                               std::tuple{"Vulkan1", "01", "NVIDIA GeForce RTX 3060"}}) {
            GpuInfo g;
            g.name = name;
            g.cardId = card;
            g.description = what;
            g.totalBytes = g.freeBytes = 8 * GiB;
            gpus.push_back(g);
        }
        hw.gpus = llamaDeviceOrder({}, std::move(gpus), {}, &hw.otherBackends);
        return hw;
    });
    QSignalSpy probed(chatApp.hardware(), &HardwareMonitor::changed);
    chatApp.hardware()->refresh();
    QTRY_VERIFY(probed.count() >= 1);
    OffloadController c(&lm, chatApp.hardware(), chatApp.api(), chatApp.vision());
    c.setModelPath(TestFixtures::instance().qwen3_30b());
    QTRY_VERIFY(c.info().has_value());
    const auto choices = c.backendChoices();
    QCOMPARE(choices.size(), 2);
    QCOMPARE(choices[0].backend, QString("CUDA")); // llama.cpp's default first
    QCOMPARE(choices[0].devices, (QStringList{"CUDA0 · NVIDIA GeForce RTX 3060", "Vulkan0 · AMD Radeon RX 6600"}));
    QCOMPARE(choices[1].backend, QString("Vulkan"));
    QCOMPARE(choices[1].devices, (QStringList{"Vulkan1 · NVIDIA GeForce RTX 3060", "Vulkan0 · AMD Radeon RX 6600"}));
    QCOMPARE(QString::fromStdString(c.plan().gpus.at(0).name), QString("CUDA0"));
    QVERIFY(!c.llamaServerCommand().contains("--device"));

    ModelSettings s = c.settings();
    s.load.backend = "Vulkan";
    c.setSettings(s);
    QCOMPARE(c.plan().gpus.size(), size_t(2));
    QCOMPARE(QString::fromStdString(c.plan().gpus[0].name), QString("Vulkan1"));
    QCOMPARE(QString::fromStdString(c.plan().gpus[1].name), QString("Vulkan0"));
    // llama-server has no per-card backend: the same devices, named.
    QVERIFY2(c.llamaServerCommand().contains(" --device Vulkan1,Vulkan0 "), qPrintable(c.llamaServerCommand()));
    QCOMPARE(ModelSettingsStore::load(TestFixtures::instance().qwen3_30b()).value().load.backend, std::string("Vulkan")); // remembered for the file
}

QTEST_GUILESS_MAIN(TestOffloadController)
#include "tst_offloadcontroller.moc"
