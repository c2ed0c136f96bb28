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
    GpuInfo rtx{"CUDA0", "NVIDIA GeForce RTX 3060", 12ull << 30, 11ull << 30};
    rtx.sameCard = {"Vulkan0"};
    QTest::newRow("one card on CUDA and Vulkan") << machine({rtx}, {})
        << QStringList{"CUDA0 · NVIDIA GeForce RTX 3060: 11.00 GiB free of 12.00 GiB (also seen as Vulkan0: the model "
                       "uses one of the two, chosen under GPU backend)"}
        << QStringList{"No GPU"};
    const GpuInfo gtx{"Vulkan0", "NVIDIA GeForce GTX 1060 6GB", 6ull << 30, 5ull << 30};
    QTest::newRow("a Pascal card left to Vulkan")
        << machine({gtx}, {{"CUDA", Kind::CardNotCovered,
                            "NVIDIA GeForce GTX 1060 6GB (6.1); the module's code: 7.5, 8.0, 8.6, 8.9, 9.0, 12.0, 12.1"}})
        << QStringList{"Vulkan0 · NVIDIA GeForce GTX 1060 6GB",
                       "The CUDA module has no code for NVIDIA GeForce GTX 1060 6GB (6.1); the module's code: 7.5, 8.0, "
                       "8.6, 8.9, 9.0, 12.0, 12.1, so this card runs on Vulkan."}
        << QStringList{"No GPU"};
    QTest::newRow("Debian's NVIDIA driver is too old for CUDA 13")
        << machine({gtx}, {{"CUDA", Kind::DriverTooOld, "12.2"}})
        << QStringList{"The NVIDIA driver runs CUDA 12.2; Shoehorn's CUDA module needs CUDA 13 (driver 580 or newer), so "
                       "NVIDIA cards run on Vulkan."}
        << QStringList{"No GPU"};
    QTest::newRow("no NVIDIA driver, no GPU") << machine({}, {{"Vulkan", Kind::NoDevice, ""}, {"CUDA", Kind::NoDriver, "libcuda.so.1"}})
        << QStringList{"No GPU: Shoehorn runs on the CPU.", "CUDA needs NVIDIA's driver (libcuda.so.1 is not installed)"}
        << QStringList{"did not load"};
    QTest::newRow("no NVIDIA driver beside an AMD card") << machine({rx}, {{"CUDA", Kind::NoDriver, "libcuda.so.1"}})
        << QStringList{"Vulkan0 · AMD"} << QStringList{"CUDA", "No GPU"};
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
