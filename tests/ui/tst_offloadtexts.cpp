// The offload panel's sentences about the machine: each GPU with its backend's device name, and
// when no GPU is used, what was looked for and what was missing (#28).
#include "offloadtexts.h"

#include "hardware.h"

#include <QtTest>

using namespace shoehorn;
using Kind = BackendProblem::Kind;


class TestOffloadTexts : public QObject
{
    Q_OBJECT
private slots:
    void hardware_data();
    void hardware();
};

namespace {

HardwareInfo machine(std::vector<GpuInfo> gpus, std::vector<BackendProblem> problems, bool modules = true)
{
    HardwareInfo hw;
    hw.gpus = std::move(gpus);
    hw.backendProblems = std::move(problems);
    hw.backendModules = modules;
    hw.cpuVariant = modules ? "haswell" : "";
    hw.ramTotalBytes = 32ull << 30;
    hw.ramAvailableBytes = 20ull << 30;
    hw.physicalCores = 6;
    return hw;
}

} // namespace

void TestOffloadTexts::hardware_data()
{
    QTest::addColumn<HardwareInfo>("hw");
    QTest::addColumn<QStringList>("said");
    QTest::addColumn<QStringList>("notSaid");
    const GpuInfo rx{"Vulkan0", "AMD Radeon RX 6600 (RADV NAVI23)", 8ull << 30, 7ull << 30};
    QTest::newRow("a Vulkan card") << machine({rx}, {{"CUDA", Kind::NoModule, "/usr/lib/shoehorn/libggml-cuda.so"}})
                                   << QStringList{"Vulkan0 · AMD Radeon RX 6600 (RADV NAVI23): 7.00 GiB free of 8.00 GiB",
                                                  "CPU kernels: haswell"}
                                   << QStringList{"No GPU", "CUDA"};
    QTest::newRow("no Vulkan package") << machine({}, {{"Vulkan", Kind::NoModule, "/usr/lib/shoehorn/libggml-vulkan.so"},
                                                       {"CUDA", Kind::NoModule, "/usr/lib/shoehorn/libggml-cuda.so"}})
                                       << QStringList{"No GPU: Shoehorn runs on the CPU. Vulkan is not installed (the "
                                                      "package shoehorn-backend-vulkan)."}
                                       << QStringList{"CUDA", "this build"};
    QTest::newRow("no libvulkan") << machine({}, {{"Vulkan", Kind::ModuleFailed,
                                                   "libvulkan.so.1: cannot open shared object file: No such file or directory"}})
                                  << QStringList{"The Vulkan module did not load: libvulkan.so.1: cannot open shared object "
                                                 "file: No such file or directory."}
                                  << QStringList{"not installed"};
    QTest::newRow("no driver") << machine({}, {{"Vulkan", Kind::NoDevice, ""}})
                               << QStringList{"Vulkan found no GPU: no Vulkan driver for it is installed"}
                               << QStringList{"not installed", "did not load"};
    QTest::newRow("a static build") << machine({}, {}, false)
                                    << QStringList{"No GPU: this build of Shoehorn has no GPU backend"}
                                    << QStringList{"CPU kernels", "Vulkan"};
}

void TestOffloadTexts::hardware()
{
    QFETCH(HardwareInfo, hw);
    QFETCH(QStringList, said);
    QFETCH(QStringList, notSaid);
    const QString text = OffloadTexts::hardware(hw, 0);
    for (const QString &s : said)
        QVERIFY2(text.contains(s), qPrintable(text));
    for (const QString &s : notSaid)
        QVERIFY2(!text.contains(s), qPrintable(text));
}

QTEST_MAIN(TestOffloadTexts)
#include "tst_offloadtexts.moc"
