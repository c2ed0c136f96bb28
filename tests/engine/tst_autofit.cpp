// Auto-fit on the Qwen3-30B-A3B shape for the 6 GB and 12 GB profiles, locks, and the edges.
#include "autofit.h"
#include "testfixtures.h"
#include "validate.h"

#include <QtTest>

using namespace shoehorn;

class TestAutoFit : public QObject
{
    Q_OBJECT
private:
    ModelInfo m_q30;
    ModelInfo m_llama8b;
    static FitRequest request()
    {
        FitRequest r;
        r.settings.context.contextSize = 32768;
        r.settings.context.flashAttention = FlashAttention::On;
        return r;
    }
    static PlanTarget profile(const char *id) { return targetFromProfile(*findProfile(id)); }

private slots:
    void initTestCase();
    void moeOnSmallCards_data();
    void moeOnSmallCards();
    void twelveGigabytesKeepsFewerExpertsInRam();
    void locksAreHonoured_data();
    void locksAreHonoured();
    void lockThatBlocksIsNamed();
    void denseModelDropsWholeLayers();
    void cpuOnlyTarget();
    void doesNotFit();
    void kvTypeTheHeadsCannotTake();
    void neverRecommendsWhatLlamaRefuses_data();
    void neverRecommendsWhatLlamaRefuses();
    void localAndRemoteDevicesSplitByRoom_data();
    void localAndRemoteDevicesSplitByRoom();
    void givenSplitIsKept();
    void speculationIsCounted_data();
    void speculationIsCounted();
};

void TestAutoFit::initTestCase()
{
    auto a = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    auto b = inspectModel(TestFixtures::instance().llama3_8b().toStdString());
    QVERIFY(a.ok() && b.ok());
    m_q30 = *a;
    m_llama8b = *b;
}

void TestAutoFit::moeOnSmallCards_data()
{
    QTest::addColumn<QString>("profileId");
    QTest::newRow("GTX 1060 6 GB") << "gtx1060-6g";
    QTest::newRow("RTX 3060 12 GB") << "rtx3060-12g";
}

void TestAutoFit::moeOnSmallCards()
{
    QFETCH(QString, profileId);
    const PlanTarget t = profile(profileId.toUtf8().constData());
    const FitRequest r = request();
    const FitResult f = autoFit(m_q30, r, t);
    qInfo("%s", describeFit(m_q30, f, t).c_str());
    QVERIFY(f.ok());
    QCOMPARE(f.outcome, FitOutcome::ExpertsOnCpu);
    const DevicePlan &g = f.plan.gpus.at(0);
    // Fits with the margin, on the GPU and in RAM.
    QVERIFY(g.use.total() + r.marginBytes <= g.available);
    QVERIFY(f.plan.ram.use.total() <= f.plan.ram.available);
    // All attention (every layer and the output) on the GPU...
    QCOMPARE(f.plan.gpuLayers, 49);
    QCOMPARE(g.layers, 48);
    uint64_t dense = 0;
    for (const auto &l : m_q30.layers)
        dense += l.attentionBytes + l.denseFfnBytes;
    QVERIFY(g.use.weightsDense >= dense);
    // ...and the experts of some layers in RAM, no more than needed: one layer fewer does not fit.
    QVERIFY(f.plan.cpuMoeLayers > 0);
    PlanSettings tighter = f.settings;
    tighter.load.cpuMoeLayers -= 1;
    const MemoryPlan over = analyticPlan(m_q30, tighter, t);
    QVERIFY(over.gpus[0].use.total() + r.marginBytes > over.gpus[0].available);
    // The full 32k context is kept.
    QCOMPARE(f.settings.context.contextSize, 32768u);
}

void TestAutoFit::twelveGigabytesKeepsFewerExpertsInRam()
{
    const FitResult six = autoFit(m_q30, request(), profile("gtx1060-6g"));
    const FitResult twelve = autoFit(m_q30, request(), profile("rtx3060-12g"));
    const FitResult big = autoFit(m_q30, request(), profile("rtx4090-24g"));
    qInfo("experts in RAM: 6 GB %d layers, 12 GB %d layers, 24 GB %d layers", six.plan.cpuMoeLayers,
          twelve.plan.cpuMoeLayers, big.plan.cpuMoeLayers);
    QVERIFY(six.plan.cpuMoeLayers > 24); // most layers
    QVERIFY(twelve.plan.cpuMoeLayers < six.plan.cpuMoeLayers);
    QCOMPARE(big.outcome, FitOutcome::AllOnGpu);
}

void TestAutoFit::locksAreHonoured_data()
{
    QTest::addColumn<int>("ngl");
    QTest::addColumn<int>("cpuMoe");
    QTest::addColumn<int>("ctx");
    QTest::addColumn<QString>("kv");
    QTest::addColumn<bool>("lockNgl");
    QTest::addColumn<bool>("lockMoe");
    QTest::addColumn<bool>("lockCtx");
    QTest::addColumn<bool>("lockKv");
    QTest::newRow("ngl 30") << 30 << 0 << 32768 << "f16" << true << false << false << false;
    QTest::newRow("ctx 8192") << -1 << 0 << 8192 << "f16" << false << false << true << false;
    QTest::newRow("f16 kv") << -1 << 0 << 32768 << "f16" << false << false << false << true;
    QTest::newRow("experts of 47 on cpu") << -1 << 47 << 32768 << "f16" << false << true << false << false;
    QTest::newRow("everything") << 49 << 44 << 16384 << "q8_0" << true << true << true << true;
}

void TestAutoFit::locksAreHonoured()
{
    QFETCH(int, ngl);
    QFETCH(int, cpuMoe);
    QFETCH(int, ctx);
    QFETCH(QString, kv);
    QFETCH(bool, lockNgl);
    QFETCH(bool, lockMoe);
    QFETCH(bool, lockCtx);
    QFETCH(bool, lockKv);
    FitRequest r = request();
    r.settings.load.gpuLayers = ngl;
    r.settings.load.cpuMoeLayers = cpuMoe;
    r.settings.context.contextSize = uint32_t(ctx);
    r.settings.context.typeK = r.settings.context.typeV = kv.toStdString();
    r.locks = {lockNgl, lockMoe, lockCtx, lockKv};
    const FitResult f = autoFit(m_q30, r, profile("gtx1060-6g"));
    QVERIFY2(f.ok(), describeFit(m_q30, f, profile("gtx1060-6g")).c_str());
    if (lockNgl)
        QCOMPARE(f.plan.gpuLayers, ngl < 0 ? 49 : ngl);
    if (lockMoe)
        QCOMPARE(f.plan.cpuMoeLayers, cpuMoe);
    if (lockCtx)
        QCOMPARE(f.settings.context.contextSize, uint32_t(ctx));
    if (lockKv)
        QCOMPARE(QString::fromStdString(f.settings.context.typeK), kv);
}

void TestAutoFit::lockThatBlocksIsNamed()
{
    // A locked --n-cpu-moe alone does not block: auto-fit moves whole layers instead.
    FitRequest r = request();
    r.settings.load.cpuMoeLayers = 5;
    r.locks.cpuMoeLayers = true;
    const FitResult moved = autoFit(m_q30, r, profile("gtx1060-6g"));
    QVERIFY(moved.ok());
    QCOMPARE(moved.outcome, FitOutcome::LayersOnCpu);
    QCOMPARE(moved.plan.cpuMoeLayers, 5);
    // With all layers locked on the GPU too, nothing fits; releasing either lock would.
    r.settings.load.gpuLayers = 49;
    r.locks.gpuLayers = true;
    const FitResult f = autoFit(m_q30, r, profile("gtx1060-6g"));
    QVERIFY(!f.ok());
    QCOMPARE(f.outcome, FitOutcome::BlockedByLock);
    QVERIFY(f.blockingLock == FitLock::GpuLayers || f.blockingLock == FitLock::CpuMoeLayers);
    qInfo("%s", describeFit(m_q30, f, profile("gtx1060-6g")).c_str());
    // Only the context lock stands in the way here: a locked 256k context (12.75 GiB of KV even
    // in q8_0) next to 17 GiB of weights, on 6 GB + 24 GB.
    FitRequest c = request();
    c.settings.context.contextSize = 262144;
    c.locks.contextSize = true;
    const HardwareProfile small{"small", "6 GB + 24 GB", "x", 6 * GiB, 24 * GiB, 6, false};
    const FitResult g = autoFit(m_q30, c, targetFromProfile(small));
    QVERIFY(!g.ok());
    QCOMPARE(g.blockingLock, FitLock::ContextSize);
}

void TestAutoFit::denseModelDropsWholeLayers()
{
    FitRequest r = request();
    r.settings.context.contextSize = 16384;
    const FitResult f = autoFit(m_llama8b, r, profile("gtx1060-6g"));
    qInfo("%s", describeFit(m_llama8b, f, profile("gtx1060-6g")).c_str());
    QVERIFY(f.ok());
    QCOMPARE(f.outcome, FitOutcome::LayersOnCpu);
    QVERIFY(f.plan.gpuLayers > 10 && f.plan.gpuLayers < 33);
    QCOMPARE(f.plan.cpuMoeLayers, 0);
    // One more layer would not fit.
    PlanSettings more = f.settings;
    more.load.gpuLayers += 1;
    const MemoryPlan over = analyticPlan(m_llama8b, more, profile("gtx1060-6g"));
    QVERIFY(over.gpus[0].use.total() + r.marginBytes > over.gpus[0].available);
}

void TestAutoFit::cpuOnlyTarget()
{
    PlanTarget t;
    t.name = "a laptop without GPU";
    t.ramAvailableBytes = t.ramTotalBytes = 32 * GiB;
    const FitResult f = autoFit(m_q30, request(), t);
    QVERIFY(f.ok());
    QCOMPARE(f.outcome, FitOutcome::CpuOnly);
    QCOMPARE(f.plan.gpuLayers, 0);
    QVERIFY(f.plan.gpus.empty());
}

void TestAutoFit::doesNotFit()
{
    HardwareProfile tiny{"tiny", "2 GB card + 8 GB RAM", "x", 2 * GiB, 8 * GiB, 4, false};
    const FitResult f = autoFit(m_q30, request(), targetFromProfile(tiny));
    QVERIFY(!f.ok());
    QCOMPARE(f.outcome, FitOutcome::DoesNotFit);
    QCOMPARE(f.blockingLock, FitLock::None);
    // It says what the leanest try needed (every layer in RAM, the smallest context), not the
    // plan asked for (it said "everything in RAM" beside a plan with every layer on the GPU).
    QCOMPARE(f.leanest.gpuLayers, 0);
    QVERIFY(!f.marginBlocks);
    const std::string why = describeFit(m_q30, f, targetFromProfile(tiny));
    QVERIFY2(why.find("with 0 of 49 layers on the GPUs and a 4096 context it needs RAM") != std::string::npos, why.c_str());
    QVERIFY2(why.find("margin") == std::string::npos, why.c_str());

    // A margin larger than the card: RAM holds it all, the GPU's margin lets nothing on it (with
    // every layer in RAM the GPU still holds the compute buffer): the CPU alone, -dev none. It said
    // "lower the margin" and offered nothing.
    FitRequest wide = request();
    wide.marginBytes = 100 * GiB;
    const FitResult m = autoFit(m_q30, wide, profile("gtx1060-6g"));
    QVERIFY(m.ok());
    QCOMPARE(m.outcome, FitOutcome::CpuOnly);
    QVERIFY(m.gpuLeftOut && m.marginBlocks);
    QCOMPARE(m.settings.load.devices, std::vector<std::string>{"none"});
    QVERIFY(m.plan.gpus.empty());
    QVERIFY(m.plan.ram.fits());
    const std::string margin = describeFit(m_q30, m, profile("gtx1060-6g"));
    QVERIFY2(margin.find("Nothing fits on the GPU with the margin kept free (lower it to use the GPU): everything "
                         "runs on the CPU (-dev none)") != std::string::npos,
             margin.c_str());
    // An earlier fit's split and main GPU (review: "-ts 0.6,0.4 --device none") go with the GPUs.
    FitRequest stale = wide;
    stale.settings.load.tensorSplit = {0.6f, 0.4f};
    stale.settings.load.mainGpu = 1;
    const FitResult clean = autoFit(m_q30, stale, profile("gtx1060-6g"));
    QVERIFY(clean.gpuLeftOut);
    QVERIFY(clean.settings.load.tensorSplit.empty());
    QCOMPARE(clean.settings.load.mainGpu, 0);
    // GPU layers locked above 0 are the user's: no CPU-alone answer, and the margin is what to
    // change (not "unlock the GPU layers", which would lose the GPU).
    wide.locks.gpuLayers = true;
    wide.settings.load.gpuLayers = 10;
    const FitResult locked = autoFit(m_q30, wide, profile("gtx1060-6g"));
    QCOMPARE(locked.outcome, FitOutcome::DoesNotFit);
    QVERIFY(locked.marginBlocks && !locked.gpuLeftOut);
    // GPU layers locked at 0: the CPU alone keeps that lock.
    wide.settings.load.gpuLayers = 0;
    QCOMPARE(autoFit(m_q30, wide, profile("gtx1060-6g")).outcome, FitOutcome::CpuOnly);
    // Too big for RAM as well: still does not fit, and the margin is not what stands in the way.
    wide.locks.gpuLayers = false;
    const FitResult tooBig = autoFit(m_q30, wide, targetFromProfile(tiny));
    QVERIFY(!tooBig.ok());
    QVERIFY(!tooBig.gpuLeftOut);
}

// q8_0 KV on heads of 16: the cause is the type, not memory. Locked, auto-fit says so; unlocked,
// it plans f16 (and never the q8_0 it would otherwise reach for to save memory).
void TestAutoFit::kvTypeTheHeadsCannotTake()
{
    ModelInfo m = m_q30;
    m.headSizeK = m.headSizeV = 16;
    FitRequest r = request();
    r.settings.context.typeK = r.settings.context.typeV = "q8_0";
    r.locks.kvType = true;
    const PlanTarget t = profile("gtx1060-6g");
    const FitResult locked = autoFit(m, r, t);
    QCOMPARE(locked.outcome, FitOutcome::KvTypeUnusable);
    QVERIFY(!locked.ok());
    const std::string why = describeFit(m, locked, t);
    QVERIFY2(why.find("needs a head size that is a multiple of 32; this model's K head size is 16") != std::string::npos,
             why.c_str());
    QVERIFY2(why.find("does not fit") == std::string::npos, why.c_str());
    r.locks.kvType = false;
    const FitResult unlocked = autoFit(m, r, t);
    QVERIFY2(unlocked.ok(), describeFit(m, unlocked, t).c_str());
    QCOMPARE(unlocked.settings.context.typeK, std::string("f16"));
    QCOMPARE(unlocked.settings.context.typeV, std::string("f16"));
    QVERIFY(!unlocked.quantizedKv);
}

void TestAutoFit::neverRecommendsWhatLlamaRefuses_data()
{
    QTest::addColumn<QString>("profileId");
    QTest::addColumn<bool>("dense");
    QTest::addColumn<int>("fa");
    for (const char *id : {"gtx1060-6g", "rtx3060-12g"})
        for (bool dense : {false, true})
            for (FlashAttention fa : {FlashAttention::Off, FlashAttention::On, FlashAttention::Auto})
                QTest::addRow("%s %s fa %s", id, dense ? "llama3-8b" : "qwen3-30b", flashAttentionName(fa))
                    << QString(id) << dense << int(fa);
}

void TestAutoFit::neverRecommendsWhatLlamaRefuses()
{
    // -fa off: llama.cpp refuses a quantized V cache, so auto-fit keeps V at f16 (K may be q8_0).
    QFETCH(QString, profileId);
    QFETCH(bool, dense);
    QFETCH(int, fa);
    const ModelInfo &m = dense ? m_llama8b : m_q30;
    const PlanTarget t = profile(profileId.toUtf8().constData());
    FitRequest r = request();
    r.settings.context.flashAttention = FlashAttention(fa);
    const FitResult f = autoFit(m, r, t);
    QVERIFY2(f.ok(), describeFit(m, f, t).c_str());
    const Error e = validate(f.settings);
    QVERIFY2(!e, e.detail.c_str());
    if (FlashAttention(fa) == FlashAttention::Off)
        QCOMPARE(f.settings.context.typeV, std::string("f16"));
}

// A remote machine (an RPC device, listed first as llama.cpp orders them) and a 6 GB card: the
// layers are split so that each device keeps its own margin, and the plan of that split (the -ts
// llama.cpp gets) is the one that fits. The remote one reports 20 GiB free but may use less.
void TestAutoFit::localAndRemoteDevicesSplitByRoom_data()
{
    QTest::addColumn<quint64>("remoteBudgetMiB");
    QTest::addColumn<quint64>("remoteMarginMiB");
    QTest::addColumn<quint64>("localMarginMiB");
    QTest::newRow("remote 8 GiB, margins 1024") << quint64(8192) << quint64(1024) << quint64(1024);
    QTest::newRow("remote 4 GiB, remote margin 256") << quint64(4096) << quint64(256) << quint64(1024);
    QTest::newRow("remote 12 GiB, local margin 2048") << quint64(12288) << quint64(1024) << quint64(2048);
}

void TestAutoFit::localAndRemoteDevicesSplitByRoom()
{
    QFETCH(quint64, remoteBudgetMiB);
    QFETCH(quint64, remoteMarginMiB);
    QFETCH(quint64, localMarginMiB);
    HardwareInfo hw;
    hw.gpus.push_back(GpuInfo{"RPC0", "192.168.1.20:50052", 24 * GiB, 20 * GiB, true});
    hw.gpus.push_back(GpuInfo{"CUDA0", "NVIDIA GeForce GTX 1060 6GB", 6 * GiB, 5632 * MiB, false});
    hw.ramTotalBytes = 32 * GiB;
    hw.ramAvailableBytes = 28 * GiB;
    hw.physicalCores = 6;
    const PlanTarget t = targetFromHardware(hw, {remoteBudgetMiB * MiB, 0});
    QCOMPARE(t.gpus[0].freeBytes, remoteBudgetMiB * MiB);
    QCOMPARE(t.gpus[1].freeBytes, 5632 * MiB);
    FitRequest r = request();
    r.deviceMarginBytes = {remoteMarginMiB * MiB, localMarginMiB * MiB};
    const FitResult f = autoFit(m_q30, r, t);
    qInfo("%s -ts %s", describeFit(m_q30, f, t).c_str(), tensorSplitText(f.settings.load.tensorSplit).c_str());
    QVERIFY(f.ok());
    QCOMPARE(f.settings.load.tensorSplit.size(), size_t(2));
    // The plan is the plan of the split it returns, and each device keeps its own margin.
    const MemoryPlan again = analyticPlan(m_q30, f.settings, t);
    for (size_t i = 0; i < 2; ++i) {
        QCOMPARE(again.gpus[i].use.total(), f.plan.gpus[i].use.total());
        QVERIFY2(f.plan.gpus[i].use.total() + r.deviceMarginBytes[i] <= f.plan.gpus[i].available,
                 qPrintable(QString("%1 over its margin").arg(QString::fromStdString(f.plan.gpus[i].name))));
        QVERIFY(f.plan.gpus[i].layers > 0); // both devices are used
    }
    QVERIFY(f.plan.gpus[0].remote);
    QVERIFY(!f.plan.gpus[1].remote);
    // Two devices hold more than the card alone: fewer experts in RAM than on the 6 GB card only.
    hw.gpus.erase(hw.gpus.begin());
    r.deviceMarginBytes = {localMarginMiB * MiB};
    const FitResult alone = autoFit(m_q30, r, targetFromHardware(hw, std::vector<uint64_t>{}));
    QVERIFY(alone.ok());
    QVERIFY2(f.plan.cpuMoeLayers < alone.plan.cpuMoeLayers,
             qPrintable(QString("%1 vs %2").arg(f.plan.cpuMoeLayers).arg(alone.plan.cpuMoeLayers)));
}

// -ts given (the CLI's -ts, llama-server's): auto-fit plans that split and chooses the rest.
void TestAutoFit::givenSplitIsKept()
{
    HardwareInfo hw;
    hw.gpus.push_back(GpuInfo{"RPC0", "127.0.0.1:50052", 16 * GiB, 16 * GiB, true});
    hw.gpus.push_back(GpuInfo{"CUDA0", "RTX 3060", 12 * GiB, 11 * GiB, false});
    hw.ramTotalBytes = hw.ramAvailableBytes = 32 * GiB;
    const PlanTarget t = targetFromHardware(hw, std::vector<uint64_t>{});
    FitRequest r = request();
    r.settings.load.tensorSplit = {1, 3};
    r.locks.tensorSplit = true;
    const FitResult f = autoFit(m_q30, r, t);
    QVERIFY(f.ok());
    QCOMPARE(f.settings.load.tensorSplit, (std::vector<float>{1, 3}));
    // A quarter on the first device, as llama.cpp's -ts 1,3 places them: of the 49 (48 and the
    // output), layer i goes there while i / 49 < 1/4, i.e. layers 0 to 12.
    QCOMPARE(f.plan.gpus[0].layers + f.plan.gpus[1].layers, 48);
    QCOMPARE(f.plan.gpus[0].layers, 13);
    // Unlocked, auto-fit chooses its own split (by room: 15 GiB against 10).
    r.locks.tensorSplit = false;
    const FitResult own = autoFit(m_q30, r, t);
    QVERIFY(own.ok());
    QVERIFY(own.plan.gpus[0].layers > own.plan.gpus[1].layers);
}

// With speculation on, its second context (the MTP layer, or a draft model) counts: the fit
// keeps the 32k context it promised and pays with experts or layers, and says how much the
// draft context takes of the GPU.
void TestAutoFit::speculationIsCounted_data()
{
    QTest::addColumn<QString>("draft"); // "mtp" or a draft model fixture
    QTest::addColumn<QString>("profileId");
    QTest::newRow("Qwen3.5-35B-A3B MTP, 6 GB") << "mtp" << "gtx1060-6g";
    QTest::newRow("Qwen3.5-35B-A3B MTP, 12 GB") << "mtp" << "rtx3060-12g";
    QTest::newRow("Llama 3.1 8B + Llama 3.2 3B draft, 12 GB") << "llama32-3b" << "rtx3060-12g";
}

void TestAutoFit::speculationIsCounted()
{
    QFETCH(QString, draft);
    QFETCH(QString, profileId);
    const PlanTarget t = profile(profileId.toUtf8().constData());
    const bool mtp = draft == "mtp";
    auto info = inspectModel((mtp ? TestFixtures::instance().qwen35_35bMtp() : TestFixtures::instance().llama3_8b())
                                 .toStdString());
    QVERIFY(info.ok());
    FitRequest plain = request();
    const FitResult without = autoFit(*info, plain, t);
    FitRequest r = request();
    if (mtp) {
        r.settings.context.speculation.types = "draft-mtp";
        r.settings.load.mtpLayers = true;
    } else {
        r.settings.context.speculation.draftModel = TestFixtures::instance().llama32_3b().toStdString();
        auto d = inspectModel(r.settings.context.speculation.draftModel);
        QVERIFY(d.ok());
        r.settings.draftModel = std::make_shared<const ModelInfo>(*d);
    }
    const FitResult with = autoFit(*info, r, t);
    const std::string said = describeFit(*info, with, t);
    qInfo("without: %s\nwith: %s", describeFit(*info, without, t).c_str(), said.c_str());
    QVERIFY(with.ok());
    const DevicePlan &g = with.plan.gpus.at(0);
    QVERIFY(g.use.draft() > 0);
    QVERIFY(g.use.total() + r.marginBytes <= g.available);
    QCOMPARE(with.settings.context.contextSize, 32768u);
    // Paid for with experts or layers in RAM.
    QVERIFY(with.plan.cpuMoeLayers > without.plan.cpuMoeLayers || with.plan.gpuLayers < without.plan.gpuLayers);
    QVERIFY2(said.find("speculative decoding's draft context takes") != std::string::npos, said.c_str());
}

QTEST_GUILESS_MAIN(TestAutoFit)
#include "tst_autofit.moc"
