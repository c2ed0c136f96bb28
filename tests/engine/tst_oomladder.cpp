// The out-of-memory ladder: order of the rungs, termination, and reading llama.cpp's failure.
#include "oomladder.h"
#include "testfixtures.h"
#include "validate.h"

#include <QtTest>

using namespace shoehorn;

Q_DECLARE_METATYPE(shoehorn::FlashAttention)

class TestOomLadder : public QObject
{
    Q_OBJECT
private slots:
    void walksDownInOrder_data();
    void walksDownInOrder();
    void parsesFailures_data();
    void parsesFailures();
};

void TestOomLadder::walksDownInOrder_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("moe");
    QTest::addColumn<FlashAttention>("fa");
    QTest::addColumn<bool>("mtp"); // draft-mtp on, the MTP layer loaded
    for (FlashAttention fa : {FlashAttention::Auto, FlashAttention::Off}) {
        const char *f = fa == FlashAttention::Off ? "fa off" : "fa auto";
        QTest::addRow("Qwen3-30B-A3B, %s", f) << TestFixtures::instance().qwen3_30b() << true << fa << false;
        QTest::addRow("Llama-3.1-8B, %s", f) << TestFixtures::instance().llama3_8b() << false << fa << false;
        QTest::addRow("Qwen3.5-35B-A3B with MTP, %s", f) << TestFixtures::instance().qwen35_35bMtp() << true << fa << true;
    }
}

void TestOomLadder::walksDownInOrder()
{
    QFETCH(QString, path);
    QFETCH(bool, moe);
    QFETCH(FlashAttention, fa);
    QFETCH(bool, mtp);
    auto info = inspectModel(path.toStdString());
    QVERIFY(info.ok());
    PlanSettings s;
    s.load.gpuLayers = -1;
    s.context.contextSize = 32768;
    s.context.flashAttention = fa;
    if (mtp) {
        s.context.speculation.types = "draft-mtp";
        s.load.mtpLayers = true;
    }
    int lastStep = -1;
    QList<int> counts(5, 0);
    int rungs = 0;
    while (auto next = nextSaferSettings(*info, s)) {
        const int step = int(next->step);
        QVERIFY2(step >= lastStep, "the ladder never goes back up a rung kind");
        lastStep = step;
        ++counts[step];
        // Never a rung llama.cpp refuses (a quantized V cache without flash attention).
        const Error refused = validate(next->after);
        QVERIFY2(!refused, refused.detail.c_str());
        // Every rung is strictly safer in exactly its own dimension.
        switch (next->step) {
        case LadderStep::SpeculationOff:
            QVERIFY(!next->after.context.speculation.on() && !next->after.load.mtpLayers);
            break;
        case LadderStep::MoreExpertsOnCpu:
            QVERIFY(next->after.load.cpuMoeLayers > next->before.load.cpuMoeLayers);
            break;
        case LadderStep::FewerGpuLayers: {
            const int before = next->before.load.gpuLayers < 0 ? int(info->layerCount) + 1 : next->before.load.gpuLayers;
            QVERIFY(next->after.load.gpuLayers < before);
            break;
        }
        case LadderStep::SmallerContext:
            QVERIFY(next->after.context.contextSize < next->before.context.contextSize);
            break;
        case LadderStep::QuantizedKv:
            QCOMPARE(QString::fromStdString(next->after.context.typeK), QString("q8_0"));
            break;
        }
        s = next->after;
        QVERIFY(++rungs < 64);
    }
    qInfo("%d rungs: %d speculation, %d expert steps, %d layer steps, %d context steps, %d KV step", rungs, counts[0],
          counts[1], counts[2], counts[3], counts[4]);
    QCOMPARE(counts[0], mtp ? 1 : 0);
    QCOMPARE(counts[1] > 0, moe);
    QVERIFY(counts[2] > 0);
    QVERIFY(counts[3] > 0);
    QCOMPARE(counts[4], 1);
    // At the bottom: CPU only, the smallest context, q8_0.
    QCOMPARE(s.load.gpuLayers, 0);
    QCOMPARE(s.context.contextSize, 2048u);
    QCOMPARE(QString::fromStdString(s.context.typeK), QString("q8_0"));
    QCOMPARE(QString::fromStdString(s.context.typeV), QString(fa == FlashAttention::Off ? "f16" : "q8_0"));
}

void TestOomLadder::parsesFailures_data()
{
    QTest::addColumn<QString>("log");
    QTest::addColumn<QString>("buffer");
    QTest::addColumn<quint64>("bytes");
    QTest::newRow("buffer") << "alloc_tensor_range: failed to allocate CUDA0 buffer of size 5368709120" << "CUDA0"
                            << quint64(5368709120ull);
    QTest::newRow("cudaMalloc") << "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1024.00 MiB on device 0: "
                                   "cudaMalloc failed: out of memory"
                                << "device 0" << quint64(1073741824ull);
    QTest::newRow("nothing") << "something else" << "" << quint64(0);
}

void TestOomLadder::parsesFailures()
{
    QFETCH(QString, log);
    QFETCH(QString, buffer);
    QFETCH(quint64, bytes);
    const auto f = parseAllocationFailure(log.toStdString());
    QCOMPARE(QString::fromStdString(f.buffer), buffer);
    QCOMPARE(quint64(f.bytes), bytes);
}

QTEST_GUILESS_MAIN(TestOomLadder)
#include "tst_oomladder.moc"
