// The analytic planner against llama.cpp on a Vulkan device (lavapipe, GGML_VK_VISIBLE_DEVICES=0):
// per device, the weights, KV cache and compute buffer it plans against what llama.cpp's dry run
// puts there for the full-size shapes, and against what a real load allocated for a tiny model.
// What a GPU backend changes: weights it refuses by size stay in RAM (lavapipe takes at most
// 128 MiB per tensor), weights in RAM lie in the GPU's host buffer and their big-batch products
// run on the GPU with a copy, and layers left in RAM run there too.
#include "chatsession.h"
#include "hardware.h"
#include "model.h"
#include "planner.h"
#include "testfixtures.h"

#include <QtTest>

#include <cmath>
#include <cstdio>

using namespace shoehorn;

namespace {

QString fixture(const QString &name)
{
    auto &f = TestFixtures::instance();
    if (name == "qwen3-30b-a3b") return f.qwen3_30b();
    if (name == "qwen35-35b-a3b") return f.qwen35_35b();
    if (name == "gemma3-12b") return f.gemma3_12b();
    if (name == "tiny-qwen3moe") return f.tinyMoe();
    if (name == "qwen35-35b-a3b-mtp") return f.qwen35_35bMtp();
    if (name == "llama3-8b") return f.llama3_8b();
    if (name == "llama32-3b") return f.llama32_3b();
    qFatal("unknown fixture");
}

double mib(uint64_t b)
{
    return double(b) / double(MiB);
}

double relError(uint64_t a, uint64_t e)
{
    return e ? (double(a) - double(e)) / double(e) : (a ? 1.0 : 0.0);
}

PlanSettings settings(int ngl, int cpuMoe, uint32_t ctx, const QString &kv, uint32_t ubatch, FlashAttention fa)
{
    PlanSettings s;
    s.load.gpuLayers = ngl;
    s.load.cpuMoeLayers = cpuMoe;
    s.context.contextSize = ctx;
    s.context.typeK = s.context.typeV = kv.toStdString();
    s.context.ubatchSize = ubatch;
    s.context.flashAttention = fa;
    s.serverLoop = true; // the chat's loop, as the window and the CLI plan it
    return s;
}

} // namespace

class TestPlannerVulkan : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void againstDryRun_data();
    void againstDryRun();
    void againstALoad();
    void speculation_data();
    void speculation();

private:
    PlanTarget m_target;
};

void TestPlannerVulkan::initTestCase()
{
    const HardwareInfo hw = probeHardware();
    QVERIFY2(!hw.gpus.empty() && hw.gpus.front().name == "Vulkan0",
             "no Vulkan0: this test needs the Vulkan module, mesa-vulkan-drivers (lavapipe) and GGML_VK_VISIBLE_DEVICES=0");
    m_target = targetFromHardware(hw);
    std::printf("\nVulkan0 (%s) takes weights up to %.1f MiB each\n\n| fixture | settings | weights MiB plan / "
                "llama.cpp | KV MiB | compute MiB plan / llama.cpp | compute err | RAM compute plan / llama.cpp |\n"
                "|---|---|--:|--:|--:|--:|--:|\n",
                hw.gpus.front().description.c_str(), mib(hw.gpus.front().maxTensorBytes));
    QVERIFY2(hw.gpus.front().maxTensorBytes > 0, "lavapipe refuses big tensors: the probe found no limit");
}

void TestPlannerVulkan::againstDryRun_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("ngl");
    QTest::addColumn<int>("cpuMoe");
    QTest::addColumn<uint32_t>("ctx");
    QTest::addColumn<QString>("kv");
    QTest::addColumn<uint32_t>("ubatch");
    QTest::addColumn<int>("fa");
    QTest::addColumn<QString>("knownMiss"); // why the compute buffer is known to miss 3 %, or empty
    const int on = int(FlashAttention::On), autoFa = int(FlashAttention::Auto);
    // qwen3moe: half its down experts (Q6_K, 157.5 MiB) are too big for lavapipe and run on the
    // CPU; --n-cpu-moe copies the Q4_K experts (108 MiB) into the GPU for each ubatch.
    QTest::newRow("qwen3moe -ngl all f16 c4096") << "qwen3-30b-a3b" << -1 << 0 << 4096u << "f16" << 512u << on << "";
    QTest::newRow("qwen3moe -ngl all --n-cpu-moe 10 f16 c8192") << "qwen3-30b-a3b" << -1 << 10 << 8192u << "f16" << 512u << on << "";
    QTest::newRow("qwen3moe -ngl all --n-cpu-moe 10 q8_0 c8192") << "qwen3-30b-a3b" << -1 << 10 << 8192u << "q8_0" << 512u << on << "";
    QTest::newRow("qwen3moe -ngl all --n-cpu-moe 10 f16 c8192 ub256") << "qwen3-30b-a3b" << -1 << 10 << 8192u << "f16" << 256u << on << "";
    QTest::newRow("qwen3moe -ngl all --n-cpu-moe 2 f16 c4096 fa-auto") << "qwen3-30b-a3b" << -1 << 2 << 4096u << "f16" << 512u << autoFa << "";
    QTest::newRow("qwen3moe -ngl 40 q8_0 c8192") << "qwen3-30b-a3b" << 40 << 0 << 8192u << "q8_0" << 512u << on << "";
    QTest::newRow("qwen3moe -ngl 20 f16 c16384") << "qwen3-30b-a3b" << 20 << 0 << 16384u << "f16" << 512u << on << "";
    // Where the peak is (tools/alloc-trace.sh): at a RAM layer's down product, 168 = 16 (mask, a
    // hidden state, router outputs and 7.7 MiB of holes) + 12 (swiglu) + 108 (the down weight's
    // copy) + 32 (its output); the K/V copies are gone by then. At 16384 cells the mask (16 MiB)
    // lands higher and the copy above it (216.5), which the plan's K/V term happens to match.
    QTest::newRow("qwen3moe -ngl 20 f16 c4096") << "qwen3-30b-a3b" << 20 << 0 << 4096u << "f16" << 512u << on
        << "layers in RAM at a small context: +7 %, the K/V copies' holes are reused there";
    // qwen35moe: every expert tensor (144-210 MiB) is too big for lavapipe: all run on the CPU.
    QTest::newRow("qwen35moe -ngl all --n-cpu-moe 10 f16 c8192") << "qwen35-35b-a3b" << -1 << 10 << 8192u << "f16" << 512u << on << "";
    QTest::newRow("qwen35moe -ngl all --n-cpu-moe 10 q8_0 c8192") << "qwen35-35b-a3b" << -1 << 10 << 8192u << "q8_0" << 512u << on << "";
    QTest::newRow("qwen35moe -ngl all f16 c4096 ub256") << "qwen35-35b-a3b" << -1 << 0 << 4096u << "f16" << 256u << on << "";
    // Layers left in RAM beside experts that run on the CPU: where the layer's weight copies, K/V
    // copies, rotation block and the experts' returning outputs fall in the allocator's holes is
    // not modelled closely (the plan takes the layer's largest weight, 9 MiB): 76.6 MiB here, 84.5
    // with q8_0 (the rotation block), 69.1 at 4096 cells with 20 layers. That one peaks with
    // 44.2 MiB live and 24.9 MiB of holes: a RAM layer's 16.09 MiB conv input (CONCAT) fits none
    // of the 16.00 MiB holes (tools/alloc-trace.sh). Only a simulation of the allocator's
    // placement would follow this; the phase maximum cannot.
    QTest::newRow("qwen35moe -ngl 30 f16 c8192") << "qwen35-35b-a3b" << 30 << 0 << 8192u << "f16" << 512u << on
        << "hybrid with layers in RAM: +5.7 %";
    QTest::newRow("qwen35moe -ngl 30 q8_0 c8192") << "qwen35-35b-a3b" << 30 << 0 << 8192u << "q8_0" << 512u << on
        << "hybrid with layers in RAM, q8_0: -4.2 % (an under-estimate)";
    QTest::newRow("qwen35moe -ngl 20 f16 c4096") << "qwen35-35b-a3b" << 20 << 0 << 4096u << "f16" << 512u << on
        << "hybrid with 20 layers in RAM at 4096 cells: +11.4 %";
    // gemma3: dense, sliding window; its tied Q6_K embedding (787.5 MiB) stays in RAM.
    QTest::newRow("gemma3 -ngl all f16 c8192") << "gemma3-12b" << -1 << 0 << 8192u << "f16" << 512u << on << "";
    QTest::newRow("gemma3 -ngl all f16 c16384") << "gemma3-12b" << -1 << 0 << 16384u << "f16" << 512u << on << "";
    QTest::newRow("gemma3 -ngl 30 f16 c8192") << "gemma3-12b" << 30 << 0 << 8192u << "f16" << 512u << on << "";
    QTest::newRow("gemma3 -ngl 30 f16 c16384") << "gemma3-12b" << 30 << 0 << 16384u << "f16" << 512u << on << "";
    // Traced (tools/alloc-trace.sh): both peak at a layer's FFN (gate, up, product: 30 MiB each);
    // with f16 KV an 8 MiB hole (a Q-sized tensor freed before them) stays unused under them, with
    // q8_0 the rotated graph's order leaves none: 122.5 against 115.0, the plan one figure for both.
    QTest::newRow("gemma3 -ngl all q8_0 c8192") << "gemma3-12b" << -1 << 0 << 8192u << "q8_0" << 512u << on
        << "quantized KV on Vulkan: +4.8 %, its graph order frees one hidden state more";
    QTest::newRow("gemma3 -ngl 30 q8_0 c8192") << "gemma3-12b" << 30 << 0 << 8192u << "q8_0" << 512u << on
        << "quantized KV on Vulkan: +4.6 %";
}

void TestPlannerVulkan::againstDryRun()
{
    QFETCH(QString, model);
    QFETCH(int, ngl);
    QFETCH(int, cpuMoe);
    QFETCH(uint32_t, ctx);
    QFETCH(QString, kv);
    QFETCH(uint32_t, ubatch);
    QFETCH(int, fa);
    QFETCH(QString, knownMiss);
    const std::string path = fixture(model).toStdString();
    auto info = inspectModel(path);
    QVERIFY(info.ok());
    const PlanSettings s = settings(ngl, cpuMoe, ctx, kv, ubatch, FlashAttention(fa));
    const MemoryPlan a = analyticPlan(*info, s, m_target);
    auto e = exactPlan(path, s, m_target);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().detail.c_str());
    QVERIFY(!a.gpus.empty() && !e->gpus.empty());
    const MemoryUse &ag = a.gpus.front().use, &eg = e->gpus.front().use;
    std::printf("| %s | %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %+.2f%% | %.1f / %.1f |\n", qPrintable(model),
                QTest::currentDataTag(), mib(ag.weights()), mib(eg.weights()), mib(ag.kv()), mib(eg.kv()),
                mib(ag.compute), mib(eg.compute), relError(ag.compute, eg.compute) * 100, mib(a.ram.use.compute),
                mib(e->ram.use.compute));
    QCOMPARE(ag.weights(), eg.weights());
    QCOMPARE(a.ram.use.weights(), e->ram.use.weights());
    QCOMPARE(ag.kv(), eg.kv());
    if (!knownMiss.isEmpty())
        QEXPECT_FAIL("", qPrintable(knownMiss), Continue);
    QVERIFY2(std::fabs(relError(ag.compute, eg.compute)) <= 0.03, "Vulkan0's compute buffer off by more than 3 %");
}

// A real load: tiny-qwen3moe with every layer on Vulkan0 and the experts of one in RAM. Its
// buffers are a few MiB, where alignment dominates: compute within 1 MiB, as tst_planner holds
// the tiny fixtures on the CPU.
void TestPlannerVulkan::againstALoad()
{
    const std::string path = fixture("tiny-qwen3moe").toStdString();
    auto info = inspectModel(path);
    QVERIFY(info.ok());
    const PlanSettings s = settings(-1, 1, 512, "f16", 512, FlashAttention::On);
    auto model = Model::load(path, s.load);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().detail.c_str());
    auto session = ChatSession::create(*model, s.context);
    QVERIFY2(session.ok(), session.ok() ? "" : session.error().detail.c_str());
    const MemoryPlan a = analyticPlan(*info, s, m_target);
    const MemoryPlan m = measuredPlan(**session, a);
    QVERIFY(!m.gpus.empty());
    const MemoryUse &ag = a.gpus.front().use, &mg = m.gpus.front().use;
    std::printf("tiny-qwen3moe loaded on Vulkan0: weights %llu / %llu bytes, KV %llu / %llu, compute %.2f / %.2f MiB\n",
                static_cast<unsigned long long>(ag.weights()), static_cast<unsigned long long>(mg.weights()),
                static_cast<unsigned long long>(ag.kv()), static_cast<unsigned long long>(mg.kv()), mib(ag.compute),
                mib(mg.compute));
    QCOMPARE(ag.weights(), mg.weights());
    QCOMPARE(ag.kv(), mg.kv());
    QVERIFY(std::max(ag.compute, mg.compute) - std::min(ag.compute, mg.compute) <= MiB);
}

// Speculation's second context per device (#29): the MTP layer on Vulkan0 with its experts in
// RAM (too big for lavapipe), and a draft model on Vulkan0 beside a model split with RAM.
void TestPlannerVulkan::speculation_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("draft"); // "mtp", or a draft model's fixture
    QTest::addColumn<int>("ngl");
    QTest::addColumn<uint32_t>("ctx");
    QTest::newRow("qwen35moe MTP -ngl 4 c8192") << "qwen35-35b-a3b-mtp" << "mtp" << 4 << 8192u;
    QTest::newRow("qwen35moe MTP -ngl 4 c32768") << "qwen35-35b-a3b-mtp" << "mtp" << 4 << 32768u;
    QTest::newRow("llama3-8b -ngl 6 + llama32-3b c4096") << "llama3-8b" << "llama32-3b" << 6 << 4096u;
}

void TestPlannerVulkan::speculation()
{
    QFETCH(QString, model);
    QFETCH(QString, draft);
    QFETCH(int, ngl);
    QFETCH(uint32_t, ctx);
    const std::string path = fixture(model).toStdString();
    auto info = inspectModel(path);
    QVERIFY(info.ok());
    PlanSettings s = settings(ngl, 0, ctx, "f16", 512, FlashAttention::On);
    if (draft == "mtp") {
        s.context.speculation.types = "draft-mtp";
        s.load.mtpLayers = true;
    } else {
        s.context.speculation.draftModel = fixture(draft).toStdString();
        auto d = inspectModel(s.context.speculation.draftModel);
        QVERIFY(d.ok());
        s.draftModel = std::make_shared<const ModelInfo>(*d);
    }
    const MemoryPlan a = analyticPlan(*info, s, m_target);
    auto e = exactPlan(path, s, m_target);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().detail.c_str());
    QVERIFY(!a.gpus.empty() && !e->gpus.empty());
    for (const auto &[x, y] : {std::pair{a.gpus.front().use, e->gpus.front().use}, std::pair{a.ram.use, e->ram.use}}) {
        std::printf("%s: draft weights %.1f / %.1f MiB, KV %.1f / %.1f, compute %.1f / %.1f\n", QTest::currentDataTag(),
                    mib(x.draftWeights), mib(y.draftWeights), mib(x.draftKv), mib(y.draftKv), mib(x.draftCompute),
                    mib(y.draftCompute));
        QVERIFY(std::max(x.draftWeights, y.draftWeights) - std::min(x.draftWeights, y.draftWeights) <= 256);
        QCOMPARE(x.draftKv, y.draftKv);
        QVERIFY2(std::max(x.draftCompute, y.draftCompute) - std::min(x.draftCompute, y.draftCompute) <=
                     std::max<uint64_t>(MiB, y.draftCompute / 10),
                 "the draft context's compute buffer off by more than 10 %");
    }
    QVERIFY(e->gpus.front().use.draft() > 0);
}

QTEST_GUILESS_MAIN(TestPlannerVulkan)
#include "tst_plannervulkan.moc"
