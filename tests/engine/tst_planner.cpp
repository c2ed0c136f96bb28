// The analytic planner against llama.cpp's own dry run, and the hardware targets.
#include "hardware.h"
#include "planner.h"
#include "testfixtures.h"

#include <QtTest>

using namespace shoehorn;

namespace {
PlanTarget cpuOnly()
{
    PlanTarget t;
    t.name = "cpu";
    t.cpuAmx = targetFromHardware(probeHardware()).cpuAmx; // this CPU's weight packing
    t.ramAvailableBytes = 64 * GiB;
    t.ramTotalBytes = 64 * GiB;
    return t;
}

PlanSettings settings(uint32_t ctx, FlashAttention fa, const char *kv = "f16", uint32_t ubatch = 512, int parallel = 1)
{
    PlanSettings s;
    s.load.gpuLayers = 0;
    s.context.contextSize = ctx;
    s.context.flashAttention = fa;
    s.context.typeK = kv;
    s.context.typeV = kv;
    s.context.ubatchSize = ubatch;
    s.parallel = parallel;
    return s;
}
} // namespace

class TestPlanner : public QObject
{
    Q_OBJECT
private slots:
    void accuracyTable();
    void gpuPlacement_data();
    void gpuPlacement();
    void kvCacheFormula();
    void mmapCountsAsRam();
    void profilesAndBudget();
    void probeIsSane();
};

void TestPlanner::accuracyTable()
{
    // What this machine can check: every buffer on the CPU (there is no GPU here).
    struct Case {
        const char *model;
        QString path;
    };
    const QList<Case> models = {{"tiny llama", TestFixtures::instance().tinyLlama()},
                                {"tiny qwen3moe", TestFixtures::instance().tinyMoe()},
                                {"Llama-3.1-8B shape", TestFixtures::instance().llama3_8b()},
                                {"Qwen3-30B-A3B shape", TestFixtures::instance().qwen3_30b()},
                                {"Qwen3.5-35B-A3B hybrid", TestFixtures::instance().qwen35_35b()},
                                {"Gemma-3-12B SWA", TestFixtures::instance().gemma3_12b()}};
    struct Setting {
        const char *name;
        PlanSettings s;
    };
    const QList<Setting> grid = {
        {"c512 fa-on", settings(512, FlashAttention::On)},
        {"c4096 fa-off", settings(4096, FlashAttention::Off)},
        {"c8192 fa-on q8_0", settings(8192, FlashAttention::On, "q8_0")},
        {"c16384 fa-off ub256", settings(16384, FlashAttention::Off, "f16", 256)},
        {"c32768 fa-on q4_0", settings(32768, FlashAttention::On, "q4_0")},
        {"c4096 fa-on np4", settings(4096, FlashAttention::On, "f16", 512, 4)},
        {"c8192 fa-auto", settings(8192, FlashAttention::Auto)},
    };
    double worst = 0;
    std::printf("\n%-22s %-22s %14s %14s %8s\n", "model", "settings", "analytic", "llama.cpp", "error");
    for (const auto &m : models) {
        auto info = inspectModel(m.path.toStdString());
        QVERIFY(info.ok());
        for (const auto &g : grid) {
            if (g.s.context.typeK != "f16" && info->headSizeK % 32 != 0) {
                // llama.cpp refuses quantized KV when the head size is not a multiple of the block.
                QVERIFY(!exactPlan(m.path.toStdString(), g.s, cpuOnly()).ok());
                continue;
            }
            const MemoryPlan a = analyticPlan(*info, g.s, cpuOnly());
            auto e = exactPlan(m.path.toStdString(), g.s, cpuOnly());
            QVERIFY2(e.ok(), e.ok() ? "" : e.error().detail.c_str());
            const double err = planError(a, *e);
            worst = std::max(worst, err);
            std::printf("%-22s %-22s %14s %14s %7.2f%%\n", m.model, g.name, formatBytes(a.ram.use.total()).c_str(),
                        formatBytes(e->ram.use.total()).c_str(), err * 100);
            // Weights and KV are computed exactly; only compute buffers are estimated.
            QCOMPARE(a.ram.use.weights(), e->ram.use.weights());
        }
    }
    std::printf("worst error: %.2f%% (target <= 3%%)\n", worst * 100);
    QVERIFY(worst <= 0.03);
}

void TestPlanner::gpuPlacement_data()
{
    QTest::addColumn<int>("ngl");
    QTest::addColumn<int>("cpuMoe");
    QTest::addColumn<int>("gpuLayersOut");
    QTest::addColumn<bool>("outputOnGpu");
    QTest::newRow("all") << -1 << 0 << 48 << true;
    QTest::newRow("all, experts of 20 on cpu") << -1 << 20 << 48 << true;
    QTest::newRow("ngl 15") << 15 << 0 << 14 << true;
    // llama.cpp offloads the output layer first: -ngl N is N-1 repeating layers plus output.
    QTest::newRow("ngl 48") << 48 << 0 << 47 << true;
    QTest::newRow("ngl 1: output only") << 1 << 0 << 0 << true;
    QTest::newRow("cpu only") << 0 << 0 << 0 << false;
}

void TestPlanner::gpuPlacement()
{
    QFETCH(int, ngl);
    QFETCH(int, cpuMoe);
    QFETCH(int, gpuLayersOut);
    QFETCH(bool, outputOnGpu);
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    QVERIFY(info.ok());
    PlanSettings s = settings(4096, FlashAttention::On);
    s.load.gpuLayers = ngl;
    s.load.cpuMoeLayers = cpuMoe;
    const PlanTarget t = targetFromProfile(*findProfile("rtx4090-24g"));
    const MemoryPlan p = analyticPlan(*info, s, t);
    QCOMPARE(p.gpus.size(), size_t(1));
    const DevicePlan &g = p.gpus[0];
    QCOMPARE(g.layers, gpuLayersOut);
    QCOMPARE(p.ram.layers, 48 - gpuLayersOut);
    // Every byte of weights is somewhere, exactly once.
    QCOMPARE(g.use.weights() + p.ram.use.weights(), info->tensorBytes);
    // Experts of the first cpuMoe layers are in RAM even when their layer is on the GPU.
    uint64_t expertsOnCpu = 0;
    for (const auto &l : info->layers)
        if (l.index < cpuMoe || l.index < 48 - gpuLayersOut)
            expertsOnCpu += l.expertBytes;
    QCOMPARE(p.ram.use.weightsExperts, expertsOnCpu);
    QCOMPARE(g.use.weightsDense >= info->outputBytes, outputOnGpu);
    // The KV cache follows its layer.
    const uint64_t kvPerLayer = 4096ull * 4 * 128 * 2 * 2;
    QCOMPARE(g.use.kvFull, kvPerLayer * uint64_t(gpuLayersOut));
    QCOMPARE(g.use.compute > 0, gpuLayersOut > 0 || outputOnGpu);
}

void TestPlanner::kvCacheFormula()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    QVERIFY(info.ok());
    // 48 layers x 4 KV heads x 128 x (K+V): f16 = 96 KiB per token, q8_0 = 51 KiB per token.
    const MemoryPlan f16 = analyticPlan(*info, settings(32768, FlashAttention::On), cpuOnly());
    QCOMPARE(f16.ram.use.kvFull, 32768ull * 48 * 4 * 128 * 2 * 2);
    const MemoryPlan q8 = analyticPlan(*info, settings(32768, FlashAttention::On, "q8_0"), cpuOnly());
    QCOMPARE(q8.ram.use.kvFull, 32768ull * 48 * 4 * 128 * 2 * 34 / 32);
    // Context is padded to 256 like llama.cpp does.
    QCOMPARE(analyticPlan(*info, settings(1000, FlashAttention::On), cpuOnly()).contextSize, 1024u);
}

void TestPlanner::mmapCountsAsRam()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    PlanSettings s = settings(4096, FlashAttention::On);
    const MemoryPlan mmap = analyticPlan(*info, s, cpuOnly());
    QCOMPARE(mmap.mmapResidentBytes, info->tensorBytes);
    s.load.loadMode = LoadMode::NoMmap;
    const MemoryPlan alloc = analyticPlan(*info, s, cpuOnly());
    QCOMPARE(alloc.mmapResidentBytes, 0ull);
    QCOMPARE(alloc.ram.use.total(), mmap.ram.use.total()); // RAM needed either way
}

void TestPlanner::profilesAndBudget()
{
    QCOMPARE(builtinProfiles().size(), size_t(4));
    const HardwareProfile *p = findProfile("gtx1060-6g");
    QVERIFY(p);
    const PlanTarget t = targetFromProfile(*p);
    QVERIFY(t.isProfile);
    QCOMPARE(t.gpus.size(), size_t(1));
    QCOMPARE(t.gpus[0].totalBytes, 6 * GiB);
    QVERIFY(t.gpus[0].freeBytes < 6 * GiB); // the desktop keeps some
    QVERIFY(!findProfile("nope"));
    HardwareInfo hw;
    hw.gpus.push_back({"CUDA0", "RTX 3090", 24 * GiB, 22 * GiB});
    hw.ramAvailableBytes = 30 * GiB;
    const PlanTarget budget = targetFromHardware(hw, 6 * GiB);
    QCOMPARE(budget.gpus[0].freeBytes, 6 * GiB);
    QCOMPARE(targetFromHardware(hw, 0).gpus[0].freeBytes, 22 * GiB);
}

void TestPlanner::probeIsSane()
{
    const HardwareInfo hw = probeHardware();
    QVERIFY(hw.ramTotalBytes > GiB);
    QVERIFY(hw.ramAvailableBytes > 0 && hw.ramAvailableBytes <= hw.ramTotalBytes);
    QVERIFY(hw.physicalCores >= 1);
    QVERIFY(!hw.backends.empty());
    if (hw.gpus.empty())
        QVERIFY(!hw.whyNoGpu.empty());
    qInfo("backends: %zu, gpus: %zu%s%s", hw.backends.size(), hw.gpus.size(), hw.gpus.empty() ? ", because " : "",
          hw.whyNoGpu.c_str());
}

QTEST_GUILESS_MAIN(TestPlanner)
#include "tst_planner.moc"
