// Under the offload gauges (PlanSummary, FitExplanation::verdict, OffloadTexts::verified): one
// sentence of verdict and one line of what checked the plan, from a table of plans; nothing of
// this computer while planning for a what-if machine; the rest behind Details (#32).
#include "appsettings.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "fitexplanation.h"
#include "gaugebar.h"
#include "gaugestack.h"
#include "offloadcontroller.h"
#include "offloadpanel.h"
#include "panelsteps.h"
#include "offloadtexts.h"
#include "plansummary.h"
#include "testfixtures.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace shoehorn;
using panelsteps::open;
using panelsteps::selectProfile;

class TestPlanSummary : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void verdictAndVerification_data();
    void verdictAndVerification();
    void whatIfSaysNothingOfThisComputer();
    void detailsOneClickAway();
    void autoFitsWordsGoWithItsInputs();
    void whatIfShowsNoLoadOfThisComputer();
};

void TestPlanSummary::init()
{
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
}

namespace {
// "CUDA0=5120/5632": a device's planned MiB of its available MiB (weights only); "+spec" adds
// speculation's draft context (256 MiB weights, 64 KV, 32 compute).
shoehorn::MemoryPlan planOf(const QStringList &devices, quint64 ramMiB, quint64 ramAvailableMiB)
{
    shoehorn::MemoryPlan plan;
    for (QString d : devices) {
        shoehorn::DevicePlan g;
        if (d.endsWith("+driver")) { // the driver's context and BLAS workspace, planned
            d.chop(7);
            g.use.overhead = 256ull << 20;
        }
        if (d.endsWith("+spec")) {
            d.chop(5);
            g.use.draftWeights = 256ull << 20;
            g.use.draftKv = 64ull << 20;
            g.use.draftCompute = 32ull << 20;
        }
        g.name = d.section('=', 0, 0).toStdString();
        g.description = "NVIDIA GeForce GTX 1060 6GB";
        g.use.weightsDense = d.section('=', 1).section('/', 0, 0).toULongLong() << 20;
        g.available = g.capacity = d.section('/', 1).toULongLong() << 20;
        plan.gpus.push_back(g);
    }
    plan.ram.use.weightsDense = ramMiB << 20;
    plan.ram.available = plan.ram.capacity = ramAvailableMiB << 20;
    return plan;
}
} // namespace

// The two lines under the gauges from a table of plans: the verdict (red when it does not fit,
// naming a what-if machine) and what checked the plan (the load, the dry run, nothing for a
// what-if machine).
void TestPlanSummary::verdictAndVerification_data()
{
    QTest::addColumn<QStringList>("devices");
    QTest::addColumn<int>("ramMiB");
    QTest::addColumn<bool>("whatIf");
    QTest::addColumn<QString>("check"); // "", "running", "exact", "loaded", "locked"
    QTest::addColumn<QString>("verdict");
    QTest::addColumn<bool>("fits");
    QTest::addColumn<QString>("verified");
    const QStringList gpu{"CUDA0=5120/5632"};
    const QStringList tooMuch{"CUDA0=7373/5632"};
    QTest::newRow("fits") << gpu << 10240 << false << "exact" << "Fits: 5.00 GiB on the GPU, 10.00 GiB in RAM." << true
                          << "llama.cpp's dry run: CUDA0 +2.0%, RAM −1.0% against the plan.";
    QTest::newRow("fits, what-if") << gpu << 10240 << true << "exact"
                                   << "Fits on GTX 1060 6 GB + 32 GB RAM: 5.00 GiB on the GPU, 10.00 GiB in RAM."
                                   << true
                                   << "What-if machine: planned, not measured.";
    QTest::newRow("GPU too small") << tooMuch << 10240 << false << "running"
                                   << "Does not fit: CUDA0 needs 7.20 GiB of 5.50 GiB — press Auto-fit"
                                   << false << "Checking with llama.cpp's dry run…";
    QTest::newRow("GPU too small, what-if")
        << tooMuch << 10240 << true << ""
        << "Does not fit on GTX 1060 6 GB + 32 GB RAM: CUDA0 needs 7.20 GiB of 5.50 GiB — press Auto-fit"
        << false << "What-if machine: planned, not measured.";
    QTest::newRow("RAM too small") << QStringList{} << 30720 << false << ""
                                   << "Does not fit: RAM needs 30.00 GiB of 20.00 GiB — press Auto-fit" << false << "";
    QTest::newRow("CPU only") << QStringList{} << 10240 << false << "running" << "Runs on the CPU: 10.00 GiB of RAM."
                              << true << "Checking with llama.cpp's dry run…";
    QTest::newRow("fits beside speculation")
        << QStringList{"CUDA0=4768/5632+spec"} << 10240 << false << ""
        << "Fits: 5.00 GiB on the GPU, 10.00 GiB in RAM. Speculative decoding takes 352.0 MiB of GPU memory for its "
           "draft context; turned off, that goes to layers or context."
        << true << "";
    QTest::newRow("loaded") << gpu << 10240 << false << "loaded" << "Fits: 5.00 GiB on the GPU, 10.00 GiB in RAM."
                            << true << "Allocated at load: CUDA0 +1.0%, RAM −2.0% against the plan.";
    // The driver's share is planned but is no llama.cpp buffer: it is not in the comparison
    // (before: a tiny model on Vulkan0 read "−98.4 %" against its plan).
    QTest::newRow("loaded, beside the driver's share")
        << QStringList{"CUDA0=4768/5632+driver"} << 10240 << false << "loaded"
        << "Fits: 4.91 GiB on the GPU, 10.00 GiB in RAM." << true
        << "Allocated at load: CUDA0 +1.0%, RAM −2.0% against the plan.";
    QTest::newRow("locked") << gpu << 10240 << false << "locked"
                            << "Nothing fits while \"Context\" is locked. Unlock it and run Auto-fit again." << false
                            << "";
    QTest::newRow("nothing fits") << gpu << 10240 << false << "no fit"
                                  << "This model does not fit in this computer, not even with everything in RAM."
                                  << false << "";
    QTest::newRow("only the margin is in the way")
        << gpu << 10240 << false << "no fit: margin"
        << "Nothing fits in this computer with the margin kept free on the GPU: lower the margin." << false << "";
}

void TestPlanSummary::verdictAndVerification()
{
    QFETCH(QStringList, devices);
    QFETCH(int, ramMiB);
    QFETCH(bool, whatIf);
    QFETCH(QString, check);
    QFETCH(QString, verdict);
    QFETCH(bool, fits);
    QFETCH(QString, verified);
    std::optional<shoehorn::ModelInfo> info = shoehorn::ModelInfo{};
    info->layerCount = 48;
    const shoehorn::MemoryPlan plan = planOf(devices, quint64(ramMiB), 20480);
    std::optional<shoehorn::FitResult> fit;
    if (check == "locked") {
        fit = shoehorn::FitResult{};
        fit->outcome = shoehorn::FitOutcome::BlockedByLock;
        fit->blockingLock = shoehorn::FitLock::ContextSize;
    } else if (check.startsWith("no fit")) {
        fit = shoehorn::FitResult{};
        fit->outcome = shoehorn::FitOutcome::DoesNotFit;
        fit->marginBlocks = check.endsWith("margin");
    }
    FitExplanation::Input in;
    in.info = &info;
    in.path = "x.gguf";
    in.lastFit = &fit;
    in.plan = &plan;
    in.targetName = whatIf ? "GTX 1060 6 GB + 32 GB RAM" : "this computer";
    in.whatIf = whatIf;
    const auto v = FitExplanation::verdict(in);
    QCOMPARE(v.text, verdict);
    QCOMPARE(v.fits, fits);
    // The gauges of the same plan: one per device and RAM, its parts as planned, red where the
    // verdict says it does not fit.
    GaugeStack stack;
    stack.show(&plan, nullptr);
    bool anyRed = false;
    for (int i = 0; i <= int(plan.gpus.size()); ++i) {
        const shoehorn::DevicePlan &d = i < int(plan.gpus.size()) ? plan.gpus[size_t(i)] : plan.ram;
        GaugeBar *g = stack.findChild<GaugeBar *>(QStringLiteral("gauge%1").arg(i));
        QVERIFY(g);
        QCOMPARE(g->segments().first().label, QString("weights"));
        QCOMPARE(g->segments().first().bytes, d.use.weightsDense);
        QCOMPARE(g->used(), d.use.total());
        QCOMPARE(g->overCapacity(), !d.fits());
        anyRed = anyRed || g->overCapacity();
    }
    if (check != "locked" && !check.startsWith("no fit")) // Auto-fit's verdicts are about settings
        QCOMPARE(anyRed, !fits);
    QVERIFY(!stack.findChild<GaugeBar *>(QStringLiteral("gauge%1").arg(plan.gpus.size() + 1)));
    // llama.cpp's dry run: 2 % more on the GPU, 1 % less in RAM than planned; loaded: 1 % more on
    // the GPU, 2 % less in RAM. Both say what llama.cpp took against the plan.
    std::optional<ExactCheck> exact;
    shoehorn::MemoryPlan measured;
    if (check == "exact") {
        exact = ExactCheck{};
        exact->ok = true;
        exact->plan = plan;
        for (auto &g : exact->plan.gpus)
            g.use.weightsDense = quint64(double(g.use.weightsDense) / 0.98);
        exact->plan.ram.use.weightsDense = quint64(double(plan.ram.use.weightsDense) / 1.01);
    }
    if (check == "loaded") {
        measured = plan;
        for (auto &g : measured.gpus) {
            g.use.weightsDense = quint64(double(g.use.weightsDense) * 1.01);
            g.use.overhead = 0; // measuredPlan: llama.cpp's buffers only
        }
        measured.ram.use.weightsDense = quint64(double(plan.ram.use.weightsDense) * 0.98);
    }
    QCOMPARE(OffloadTexts::verified({&plan, check == "loaded" ? &measured : nullptr, &exact, check == "running",
                                     whatIf}),
             verified);
}

// Planning for a what-if machine: nothing about this computer (its free memory, its GPU or the
// lack of one, this build) is said; the verdict names the machine.
void TestPlanSummary::whatIfSaysNothingOfThisComputer()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    OffloadController panelPlans(&lm, cApp.hardware(), cApp.api(), cApp.vision());
    OffloadPanel panel(&panelPlans, &lm, cApp.tuning());
    panel.show();
    QVERIFY(open(panel, TestFixtures::instance().qwen3_30b()));
    auto *machine = panel.findChild<QLabel *>("hardwareLabel");
    QTRY_VERIFY2(machine->text().contains("available of"), qPrintable(machine->text()));
    QVERIFY(!panel.verdict().contains(" on this computer"));
    selectProfile(panel, "gtx1060-6g");
    QTRY_VERIFY2(machine->text().startsWith("What-if machine GTX 1060 6 GB + 32 GB RAM: NVIDIA GeForce GTX 1060 6GB "
                                            "with 6.00 GiB"),
                 qPrintable(machine->text()));
    for (const QString &said : {machine->text(), panel.verdict(), panel.verified(), panel.explanation()})
        for (const char *local : {"No GPU", "this build", "available of", "The loaded model holds", "CPU kernels"})
            QVERIFY2(!said.contains(local), qPrintable(said));
    QVERIFY2(panel.verdict().contains("GTX 1060 6 GB + 32 GB RAM"), qPrintable(panel.verdict()));
    QVERIFY2(panel.verified().startsWith("What-if machine"), qPrintable(panel.verified()));
    panelsteps::autoFit(panel, panelPlans);
    QVERIFY2(panel.verdict().startsWith("Fits on GTX 1060 6 GB + 32 GB RAM: "), qPrintable(panel.verdict()));
}

// One line of verdict and one of verification under the gauges; the long explanation is behind
// Details, not on screen until asked for.
void TestPlanSummary::detailsOneClickAway()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    OffloadController panelPlans(&lm, cApp.hardware(), cApp.api(), cApp.vision());
    OffloadPanel panel(&panelPlans, &lm, cApp.tuning());
    panel.resize(370, 900);
    panel.show();
    QVERIFY(open(panel, TestFixtures::instance().qwen3_30b()));
    selectProfile(panel, "gtx1060-6g");
    panelsteps::autoFit(panel, panelPlans);
    auto *explanation = panel.findChild<QLabel *>("fitExplanation");
    QVERIFY(explanation->text().contains("the experts of the first"));
    QVERIFY(!explanation->isVisible());
    // The verdict: one sentence, in two lines at most at the panel's default width; what checked the
    // plan: one line, cut to the width and whole in its tooltip.
    auto *verdict = panel.findChild<QLabel *>("fitVerdict");
    QVERIFY(verdict->isVisible() && verdict->height() < 3 * verdict->fontMetrics().height());
    QCOMPARE(verdict->text(), panel.verdict());
    auto *verified = panel.findChild<QLabel *>("verifiedLine");
    QVERIFY(verified->isVisible() && verified->height() < 2 * verified->fontMetrics().height());
    QCOMPARE(verified->toolTip(), panel.verified());
    QTest::mouseClick(panel.findChild<QWidget *>("planDetailsButton"), Qt::LeftButton);
    QVERIFY(panel.summary()->detailsShown());
    QVERIFY(explanation->isVisible());
    QVERIFY(panel.findChild<QLabel *>("hardwareLabel")->isVisible());
    QTest::mouseClick(panel.findChild<QWidget *>("planDetailsButton"), Qt::LeftButton);
    QVERIFY(!explanation->isVisible());
}

// What Auto-fit said holds for the margin and the machine it was given: a margin changed back, or
// another machine in "Plan for", takes its words away ("lower the margin" stayed, and followed
// the panel to this computer).
void TestPlanSummary::autoFitsWordsGoWithItsInputs()
{
    panelsteps::ShownPanel shown;
    OffloadPanel &panel = shown.panel;
    QVERIFY(open(panel, TestFixtures::instance().tinyApi()));
    selectProfile(panel, "gtx1060-6g");
    auto *margin = panel.findChild<QSpinBox *>("fitMargin");
    // A margin above the card: the CPU alone, and why (it said "lower the margin" and offered nothing).
    const QString blocked = "Nothing fits on the GPU with the margin kept free: everything runs on the CPU, with 2k "
                            "context. Lower the margin to use the GPU.";
    margin->setValue(9999);
    panelsteps::autoFit(panel, shown.plans);
    QVERIFY2(panel.verdict().startsWith(blocked), qPrintable(panel.verdict()));
    QCOMPARE(panel.plan().gpus.size(), size_t(0)); // -dev none
    // GPU layers given back by hand: the GPU is used again (the slider moved, the GPU stayed unused).
    auto *layers = panel.findChild<QSlider *>("gpuLayers");
    QCOMPARE(layers->value(), 0);
    layers->setValue(layers->maximum());
    QCOMPARE(panel.plan().gpus.size(), size_t(1));
    margin->setValue(9999);
    panelsteps::autoFit(panel, shown.plans);
    QCOMPARE(panel.plan().gpus.size(), size_t(0));
    margin->setValue(1024);
    QVERIFY2(!panel.verdict().startsWith("Nothing fits"), qPrintable(panel.verdict()));
    margin->setValue(9999);
    panelsteps::autoFit(panel, shown.plans);
    QVERIFY2(panel.verdict().startsWith(blocked), qPrintable(panel.verdict()));
    // Auto-fit with room again gives the GPU back (the CPU-alone answer is not kept as a choice).
    margin->setValue(1024);
    panelsteps::autoFit(panel, shown.plans);
    QCOMPARE(panel.plan().gpus.size(), size_t(1));
    margin->setValue(9999);
    panelsteps::autoFit(panel, shown.plans);
    auto *target = panel.findChild<QComboBox *>("planFor");
    target->setCurrentIndex(0); // this computer
    QVERIFY2(!panel.verdict().contains("Nothing fits"), qPrintable(panel.verdict()));
}

// The loaded model's figures are this computer's: planning a what-if machine, the gauges showed
// "Allocated at load: 4.5 MiB (+96.8%)" and the RAM line "Resident now" against the what-if plan.
void TestPlanSummary::whatIfShowsNoLoadOfThisComputer()
{
    panelsteps::ShownPanel p;
    LoadedModel &lm = p.lm;
    OffloadController &panelPlans = p.plans;
    OffloadPanel &panel = p.panel;
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyApi());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    QTRY_VERIFY(panelPlans.measured() != nullptr);
    auto shown = [&panel](const QString &words) {
        for (QLabel *l : panel.findChildren<QLabel *>())
            if (l->isVisible() && (l->text().contains(words) || l->toolTip().contains(words)))
                return true;
        return false;
    };
    QTRY_VERIFY(shown("Allocated at load")); // the panel shows the measured plan a turn later
    auto *load = panel.findChild<QPushButton *>("loadButton");
    QCOMPARE(load->text(), QString("Reload"));
    selectProfile(panel, "gtx1060-6g");
    QCOMPARE(load->text(), QString("Reload on this computer")); // it loads here, not on the GTX 1060
    QVERIFY(panelPlans.measured() == nullptr);
    QVERIFY(!panelPlans.ramParts().loaded);
    QVERIFY(!shown("Allocated at load"));
    QVERIFY(!shown("Resident now"));
    panel.findChild<QComboBox *>("planFor")->setCurrentIndex(0); // this computer: its load again
    QVERIFY(panelPlans.measured() != nullptr);
    QVERIFY(shown("Allocated at load"));
}

QTEST_MAIN(TestPlanSummary)
#include "tst_plansummary.moc"
