// Which GPUs a model gets: llama.cpp's default (each card once, through the first backend that
// lists it), a backend chosen for cards two backends see, or llama.cpp's --device list; and the
// plan follows the same choice. The load itself on lavapipe: tests/engine/backends.sh (2b).
#include "hardware.h"
#include "planner.h"
#include "settings.h"
#include "testfixtures.h"

#include <QtTest>

using namespace shoehorn;

namespace {

// "NAME@CARD" (the card's PCI bus id), as llama.cpp's registry lists them: CUDA's first.
HardwareInfo machine(const QStringList &devices)
{
    std::vector<GpuInfo> discrete;
    for (const QString &d : devices) {
        GpuInfo g;
        g.name = d.section('@', 0, 0).toStdString();
        g.cardId = d.section('@', 1).toStdString();
        g.description = g.cardId == "01" ? "NVIDIA GeForce RTX 3060" : "AMD Radeon RX 6600";
        g.totalBytes = g.freeBytes = 12 * GiB;
        discrete.push_back(g);
    }
    HardwareInfo hw;
    hw.gpus = llamaDeviceOrder({}, std::move(discrete), {}, &hw.otherBackends);
    hw.ramTotalBytes = hw.ramAvailableBytes = 64 * GiB;
    hw.physicalCores = 8;
    return hw;
}

QStringList names(const std::vector<GpuInfo> &gpus)
{
    QStringList out;
    for (const GpuInfo &g : gpus)
        out << QString::fromStdString(g.name);
    return out;
}

} // namespace

class TestDevices : public QObject
{
    Q_OBJECT
private slots:
    void chosen_data();
    void chosen();
    void backendChoices_data();
    void backendChoices();
    void deviceListText_data();
    void deviceListText();
    void budgetCapsTheCardThroughEitherBackend();
    void planUsesTheChosenDevices();
};

void TestDevices::chosen_data()
{
    QTest::addColumn<QStringList>("devices");
    QTest::addColumn<QString>("backend");      // LoadSettings::backend
    QTest::addColumn<QStringList>("deviceList"); // LoadSettings::devices (--device)
    QTest::addColumn<QStringList>("used");
    const QStringList nvidia{"CUDA0@01", "Vulkan0@01"};
    QTest::newRow("default: llama.cpp's, CUDA") << nvidia << "" << QStringList{} << QStringList{"CUDA0"};
    QTest::newRow("Vulkan for the NVIDIA card") << nvidia << "Vulkan" << QStringList{} << QStringList{"Vulkan0"};
    QTest::newRow("CUDA named: as the default") << nvidia << "CUDA" << QStringList{} << QStringList{"CUDA0"};
    QTest::newRow("a backend that sees no card twice") << nvidia << "SYCL" << QStringList{} << QStringList{"CUDA0"};
    const QStringList mixed{"CUDA0@01", "Vulkan0@02", "Vulkan1@01"};
    QTest::newRow("NVIDIA + AMD, default") << mixed << "" << QStringList{} << QStringList{"CUDA0", "Vulkan0"};
    // The card keeps its place in llama.cpp's order: the split (-ts) and the budgets count so.
    QTest::newRow("NVIDIA + AMD, Vulkan for both") << mixed << "Vulkan" << QStringList{}
                                                   << QStringList{"Vulkan1", "Vulkan0"};
    QTest::newRow("--device as given, in its order") << mixed << "" << QStringList{"Vulkan0", "CUDA0"}
                                                     << QStringList{"Vulkan0", "CUDA0"};
    QTest::newRow("--device over --backend") << nvidia << "Vulkan" << QStringList{"CUDA0"} << QStringList{"CUDA0"};
    QTest::newRow("--device none") << nvidia << "" << QStringList{"none"} << QStringList{};
    QTest::newRow("--device of another machine: left out") << nvidia << "" << QStringList{"Vulkan3"} << QStringList{};
}

void TestDevices::chosen()
{
    QFETCH(QStringList, devices);
    QFETCH(QString, backend);
    QFETCH(QStringList, deviceList);
    QFETCH(QStringList, used);
    const HardwareInfo hw = machine(devices);
    LoadSettings load;
    load.backend = backend.toStdString();
    for (const QString &d : deviceList)
        load.devices.push_back(d.toStdString());
    const auto got = modelDevices(hw.gpus, hw.otherBackends, load);
    QCOMPARE(names(got), used);
    for (const GpuInfo &g : got) // a chosen twin keeps its own description and memory
        QVERIFY(!g.description.empty() && g.freeBytes == 12 * GiB);
}

void TestDevices::backendChoices_data()
{
    QTest::addColumn<QStringList>("devices");
    QTest::addColumn<QStringList>("choices");
    QTest::newRow("one card, two backends") << QStringList{"CUDA0@01", "Vulkan0@01"} << QStringList{"CUDA", "Vulkan"};
    QTest::newRow("an AMD card: nothing to choose") << QStringList{"Vulkan0@02"} << QStringList{};
    QTest::newRow("no ids: nothing matched") << QStringList{"CUDA0", "Vulkan0"} << QStringList{};
    QTest::newRow("NVIDIA + AMD") << QStringList{"CUDA0@01", "Vulkan0@02", "Vulkan1@01"}
                                  << QStringList{"CUDA", "Vulkan"};
}

void TestDevices::backendChoices()
{
    QFETCH(QStringList, devices);
    QFETCH(QStringList, choices);
    QStringList got;
    for (const std::string &b : shoehorn::backendChoices(machine(devices).gpus))
        got << QString::fromStdString(b);
    QCOMPARE(got, choices);
}

void TestDevices::deviceListText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("parsed"); // empty: refused
    QTest::newRow("one") << "Vulkan0" << QStringList{"Vulkan0"};
    QTest::newRow("two") << "CUDA0,Vulkan1" << QStringList{"CUDA0", "Vulkan1"};
    QTest::newRow("none") << "none" << QStringList{"none"};
    QTest::newRow("none among others") << "none,CUDA0" << QStringList{};
    QTest::newRow("empty") << "" << QStringList{};
    QTest::newRow("empty name") << "CUDA0,,Vulkan0" << QStringList{};
    QTest::newRow("a space") << "CUDA0, Vulkan0" << QStringList{};
}

void TestDevices::deviceListText()
{
    QFETCH(QString, text);
    QFETCH(QStringList, parsed);
    std::vector<std::string> out{"kept"};
    const bool ok = parseDeviceList(text.toStdString(), out);
    QCOMPARE(ok, !parsed.isEmpty());
    QStringList got;
    for (const std::string &d : out)
        got << QString::fromStdString(d);
    QCOMPARE(got, ok ? parsed : QStringList{"kept"}); // refused: unchanged
    if (ok)
        QCOMPARE(QString::fromStdString(shoehorn::deviceListText(out)), text);
}

void TestDevices::budgetCapsTheCardThroughEitherBackend()
{
    const HardwareInfo hw = machine({"CUDA0@01", "Vulkan0@01"});
    const PlanTarget t = targetFromHardware(hw, 6 * GiB);
    LoadSettings vulkan;
    vulkan.backend = "Vulkan";
    const auto got = modelDevices(t.gpus, t.otherBackends, vulkan);
    QCOMPARE(names(got), QStringList{"Vulkan0"});
    QCOMPARE(got.front().freeBytes, 6 * GiB);
}

void TestDevices::planUsesTheChosenDevices()
{
    auto model = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    QVERIFY(model.ok());
    HardwareInfo hw = machine({"CUDA0@01", "Vulkan0@01"});
    // Vulkan on this driver takes weights up to 1 GiB (the planner leaves bigger ones in RAM).
    hw.otherBackends.front().maxTensorBytes = GiB;
    const PlanTarget t = targetFromHardware(hw, 0);
    PlanSettings s;
    s.load.cpuMoeLayers = 30;
    const MemoryPlan cuda = analyticPlan(*model, s, t);
    QCOMPARE(cuda.gpus.size(), size_t(1));
    QCOMPARE(QString::fromStdString(cuda.gpus[0].name), QString("CUDA0"));
    s.load.backend = "Vulkan";
    const MemoryPlan vulkan = analyticPlan(*model, s, t);
    QCOMPARE(vulkan.gpus.size(), size_t(1));
    QCOMPARE(QString::fromStdString(vulkan.gpus[0].name), QString("Vulkan0"));
    QCOMPARE(vulkan.gpus[0].use.weights(), cuda.gpus[0].use.weights()); // the same card, the same layers
    s.load.backend.clear();
    s.load.devices = {"none"};
    const MemoryPlan none = analyticPlan(*model, s, t);
    QVERIFY(none.gpus.empty());
    QCOMPARE(none.ram.use.weights(), cuda.ram.use.weights() + cuda.gpus[0].use.weights());
}

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
