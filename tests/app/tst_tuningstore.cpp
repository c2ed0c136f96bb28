// Tuning results per model file and machine: the machine id stays put while free memory
// moves and changes with the hardware; a stored report comes back whole, for its own model
// and machine only.
#include "appsettings.h"
#include "tuningstore.h"
#include "testsettings.h"

#include <QSettings>
#include <QtTest>

using namespace shoehorn;

Q_DECLARE_METATYPE(HardwareInfo)

namespace {

HardwareInfo rtx3060()
{
    HardwareInfo hw;
    hw.gpus.push_back({"CUDA0", "NVIDIA GeForce RTX 3060", 12 * GiB, 11 * GiB});
    hw.ramTotalBytes = 32 * GiB - 300 * MiB; // what the kernel reports for 32 GB
    hw.ramAvailableBytes = 20 * GiB;
    hw.physicalCores = 6;
    hw.logicalCores = 12;
    hw.backends = {"CPU", "CUDA"};
    return hw;
}

// Every stored field of a measurement as "name=value", so a failed comparison names it.
QStringList describe(const TuneMeasurement &m)
{
    const auto &s = m.candidate.settings;
    return {QString("label=%1").arg(QString::fromStdString(m.candidate.label)),
            QString("lowerQuality=%1").arg(m.candidate.lowerQuality),
            QString("ok=%1").arg(m.ok),
            QString("error=%1 %2").arg(errorCodeName(m.error.code), QString::fromStdString(m.error.detail)),
            QString("pp=%1±%2").arg(m.prompt.mean).arg(m.prompt.stddev),
            QString("tg=%1±%2").arg(m.generate.mean).arg(m.generate.stddev),
            QString("ngl=%1").arg(s.load.gpuLayers),
            QString("ncmoe=%1").arg(s.load.cpuMoeLayers),
            QString("backend=%1").arg(QString::fromStdString(s.load.backend)),
            QString("ctx=%1").arg(s.context.contextSize),
            QString("threads=%1").arg(s.context.threads),
            QString("ubatch=%1").arg(s.context.ubatchSize),
            QString("fa=%1").arg(flashAttentionName(s.context.flashAttention)),
            QString("ctk=%1").arg(QString::fromStdString(s.context.typeK)),
            QString("ctv=%1").arg(QString::fromStdString(s.context.typeV)),
            QString("chatPath=%1").arg(m.candidate.chatPath),
            QString("spec=%1").arg(QString::fromStdString(s.context.speculation.types)),
            QString("specMax=%1").arg(s.context.speculation.draftMax),
            QString("specDraft=%1").arg(QString::fromStdString(s.context.speculation.draftModel)),
            QString("mtpLayers=%1").arg(s.load.mtpLayers)};
}

QStringList describe(const TuneReport &r)
{
    QStringList out{QString("best=%1").arg(r.result.best), "when=" + r.when.toString(Qt::ISODateWithMs)};
    for (const auto &m : r.result.measurements)
        out << "measurement:" << describe(m);
    for (const auto &s : r.story)
        out << "step:" + QString::fromStdString(s.name) << QString("speedup=%1").arg(s.speedup)
            << describe(s.measurement);
    return out;
}

TuneMeasurement measurement(const char *label, int ngl, int ncmoe, double tg, bool ok = true)
{
    TuneMeasurement m;
    m.candidate.label = label;
    m.candidate.settings.load.gpuLayers = ngl;
    m.candidate.settings.load.cpuMoeLayers = ncmoe;
    m.candidate.settings.context.contextSize = 32768;
    m.candidate.settings.context.threads = 5;
    m.candidate.settings.context.ubatchSize = 256;
    m.candidate.settings.context.flashAttention = FlashAttention::On;
    m.candidate.settings.context.typeK = "q8_0";
    m.candidate.settings.context.typeV = "q8_0";
    m.ok = ok;
    if (ok) {
        m.prompt = {812.5, 12.25, 3};
        m.generate = {tg, 0.75, 3};
    } else {
        m.error = {ErrorCode::OutOfMemory, "CUDA0 buffer of 5.00 GiB — 显存不足"};
    }
    return m;
}

TuneReport report(double speed)
{
    TuneReport r;
    r.result.measurements = {measurement("-ngl 99 --n-cpu-moe 30", 99, 30, speed),
                             measurement("-ngl 99 --n-cpu-moe 20", 99, 20, speed * 1.5),
                             measurement("-ngl 99 --n-cpu-moe 10", 99, 10, 0, false)};
    r.result.measurements[1].candidate.lowerQuality = true;
    r.result.measurements[1].candidate.settings.context.typeK = "q4_0";
    r.result.measurements[1].candidate.settings.context.flashAttention = FlashAttention::Off;
    r.result.best = 1;
    // Speculation measured on the chat path: MTP with 3 drafts, a draft model.
    TuneMeasurement mtp = measurement("mtp", 99, 30, speed * 1.2);
    mtp.candidate.chatPath = true;
    mtp.candidate.settings.context.speculation.types = "draft-mtp";
    mtp.candidate.settings.context.speculation.draftMax = 3;
    mtp.candidate.settings.load.mtpLayers = true;
    TuneMeasurement draft = measurement("draft", 99, 30, speed * 0.9);
    draft.candidate.chatPath = true;
    draft.candidate.settings.context.speculation.types = "draft-simple";
    draft.candidate.settings.context.speculation.draftModel = "/m/Qwen3-0.6B-Q8_0.gguf";
    r.result.measurements.push_back(mtp);
    r.result.measurements.push_back(draft);
    // The card through its other backend (AutoTuner's backend axis).
    TuneMeasurement vulkan = measurement("vulkan", 99, 20, speed * 1.6);
    vulkan.candidate.settings.load.backend = "Vulkan";
    r.result.measurements.push_back(vulkan);
    TuneStep baseline{"baseline", measurement("-ngl 0", 0, 0, 3.5), 1.0};
    baseline.measurement.candidate.settings.context.flashAttention = FlashAttention::Auto;
    TuneStep layers{"GPU layers", measurement("-ngl 99 --n-cpu-moe 30", 99, 30, speed), speed / 3.5};
    r.story = {baseline, layers};
    r.when = QDateTime(QDate(2025, 3, 14), QTime(15, 9, 26), Qt::UTC);
    return r;
}

} // namespace

class TestTuningStore : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void machineIdIsStable();
    void machineIdFollowsHardware_data();
    void machineIdFollowsHardware();
    void roundTrip();
    void perModelAndMachine();
    void overwrite();
    void nothingStored();
    void currentLabelMatchesItsRow();
};

void TestTuningStore::initTestCase()
{
    isolateSettings();
}

void TestTuningStore::init()
{
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
}

void TestTuningStore::machineIdIsStable()
{
    const HardwareInfo hw = rtx3060();
    const QString id = TuningStore::machineId(hw);
    QVERIFY(!id.isEmpty());
    QCOMPARE(TuningStore::machineId(rtx3060()), id);
    // What changes from one second to the next does not change the machine.
    HardwareInfo busy = hw;
    busy.gpus[0].freeBytes = 2 * GiB;
    busy.ramAvailableBytes = 3 * GiB;
    busy.backendProblems = {{"Vulkan", BackendProblem::Kind::NoDevice, "ignored"}};
    busy.cpuWeightBuffers = {"CPU_REPACK"};
    QCOMPARE(TuningStore::machineId(busy), id);
    // Nor do a few MiB more or less RAM reported after a kernel update.
    HardwareInfo kernel = hw;
    kernel.ramTotalBytes += 100 * MiB;
    QCOMPARE(TuningStore::machineId(kernel), id);
    kernel.ramTotalBytes -= 200 * MiB;
    QCOMPARE(TuningStore::machineId(kernel), id);
}

void TestTuningStore::machineIdFollowsHardware_data()
{
    QTest::addColumn<HardwareInfo>("other");
    auto row = [](const char *name, auto change) {
        HardwareInfo hw = rtx3060();
        change(hw);
        QTest::newRow(name) << hw;
    };
    row("other GPU", [](HardwareInfo &hw) { hw.gpus[0].description = "NVIDIA GeForce RTX 4090"; });
    row("same GPU, more VRAM", [](HardwareInfo &hw) { hw.gpus[0].totalBytes = 16 * GiB; });
    row("second GPU", [](HardwareInfo &hw) { hw.gpus.push_back(hw.gpus[0]); });
    row("no GPU", [](HardwareInfo &hw) { hw.gpus.clear(); });
    row("more RAM", [](HardwareInfo &hw) { hw.ramTotalBytes = 64 * GiB - 300 * MiB; });
    row("less RAM", [](HardwareInfo &hw) { hw.ramTotalBytes = 16 * GiB - 300 * MiB; });
    row("more cores", [](HardwareInfo &hw) { hw.physicalCores = 8; });
}

void TestTuningStore::machineIdFollowsHardware()
{
    QFETCH(HardwareInfo, other);
    QVERIFY(TuningStore::machineId(other) != TuningStore::machineId(rtx3060()));
    // And a result stored for one machine is not offered on the other.
    TuningStore::save("/m/a.gguf", TuningStore::machineId(rtx3060()), report(20));
    QVERIFY(!TuningStore::load("/m/a.gguf", TuningStore::machineId(other)));
    QVERIFY(TuningStore::load("/m/a.gguf", TuningStore::machineId(rtx3060())));
}

void TestTuningStore::roundTrip()
{
    const QString machine = TuningStore::machineId(rtx3060());
    const TuneReport saved = report(21.25);
    TuningStore::save("/models/Qwen3 30B/千问 \"A3B\".gguf", machine, saved);
    const std::optional<TuneReport> found = TuningStore::load("/models/Qwen3 30B/千问 \"A3B\".gguf", machine);
    QVERIFY(found);
    const TuneReport &loaded = *found;
    QVERIFY(!loaded.empty());
    QCOMPARE(describe(loaded), describe(saved));
    QCOMPARE(loaded.when, saved.when);
}

void TestTuningStore::perModelAndMachine()
{
    const QString home = TuningStore::machineId(rtx3060());
    HardwareInfo laptop = rtx3060();
    laptop.gpus[0].description = "NVIDIA GeForce RTX 4060 Laptop GPU";
    laptop.gpus[0].totalBytes = 8 * GiB;
    const QString away = TuningStore::machineId(laptop);
    TuningStore::save("/m/a.gguf", home, report(10));
    TuningStore::save("/m/a.gguf", away, report(20));
    TuningStore::save("/m/b.gguf", home, report(30));
    QCOMPARE(describe(TuningStore::load("/m/a.gguf", home).value()), describe(report(10)));
    QCOMPARE(describe(TuningStore::load("/m/a.gguf", away).value()), describe(report(20)));
    QCOMPARE(describe(TuningStore::load("/m/b.gguf", home).value()), describe(report(30)));
    QVERIFY(!TuningStore::load("/m/b.gguf", away));
    QVERIFY(!TuningStore::load("/m/c.gguf", home));
}

void TestTuningStore::overwrite()
{
    const QString machine = TuningStore::machineId(rtx3060());
    TuningStore::save("/m/a.gguf", machine, report(10));
    TuningStore::save("/m/a.gguf", machine, report(40));
    QCOMPARE(describe(TuningStore::load("/m/a.gguf", machine).value()), describe(report(40)));
    AppSettings::waitForWrites(); // written on the settings writer's thread
    QCOMPARE(QSettings().allKeys().size(), 1);
}

void TestTuningStore::nothingStored()
{
    const QString machine = TuningStore::machineId(rtx3060());
    QVERIFY(!TuningStore::load("/m/never.gguf", machine));
    // A run that measured nothing (cancelled at once) is stored but is no result.
    TuningStore::save("/m/a.gguf", machine, TuneReport{});
    QVERIFY(!TuningStore::load("/m/a.gguf", machine));
}

// The tuning dialog marks the current settings' row by its label: with speculation on, that row
// was measured on the chat path (AutoTuner's speculation axis) and says so.
void TestTuningStore::currentLabelMatchesItsRow()
{
    LoadSettings load;
    load.gpuLayers = 42;
    ContextSettings ctx;
    ctx.threads = 4;
    const std::string plain = TuningStore::label(load, ctx);
    QCOMPARE(plain, AutoTuner::label(PlanSettings{load, ctx, 1}));
    ctx.speculation.types = "draft-mtp";
    ctx.speculation.draftMax = 2;
    QCOMPARE(TuningStore::label(load, ctx), plain + " --spec-type draft-mtp --spec-draft-n-max 2 (chat path)");
}

QTEST_GUILESS_MAIN(TestTuningStore)
#include "tst_tuningstore.moc"
