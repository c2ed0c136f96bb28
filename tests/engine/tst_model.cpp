// Model loading: settings, progress, cancel and failures as values.
#include "hardware.h"
#include "chatsession.h"
#include "model.h"
#include "planner.h"
#include "testfixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace shoehorn;

class TestModel : public QObject
{
    Q_OBJECT
private slots:
    void loadsWithProgress_data();
    void loadsWithProgress();
    void cancelDuringLoad();
    void cancelBeforeLoad();
    void brokenFileIsAnError();
    void cpuMoePatterns();
    void copiedWeightsLeaveTheMapping();
    void outOfMemoryText_data();
    void outOfMemoryText();
};

void TestModel::loadsWithProgress_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("cpuMoe");
    QTest::newRow("llama mmap") << TestFixtures::instance().tinyLlama() << int(LoadMode::Mmap) << 0;
    QTest::newRow("moe no-mmap") << TestFixtures::instance().tinyMoe() << int(LoadMode::NoMmap) << 0;
    QTest::newRow("moe n-cpu-moe 2") << TestFixtures::instance().tinyMoe() << int(LoadMode::Mmap) << 2;
    QTest::newRow("split moe") << TestFixtures::instance().splitMoe() << int(LoadMode::Mmap) << 0;
}

void TestModel::loadsWithProgress()
{
    QFETCH(QString, path);
    QFETCH(int, mode);
    QFETCH(int, cpuMoe);
    LoadSettings s;
    s.loadMode = LoadMode(mode);
    s.cpuMoeLayers = cpuMoe;
    s.gpuLayers = 0;
    std::vector<float> progress;
    auto m = Model::load(path.toStdString(), s, [&](float p) { progress.push_back(p); });
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().detail.c_str());
    QVERIFY(!progress.empty());
    QCOMPARE(progress.back(), 1.0f);
    QVERIFY(std::is_sorted(progress.begin(), progress.end()));
    // With mmap the file is first read into the page cache by us, with progress (llama.cpp's
    // MAP_POPULATE would read it silently); without mmap llama.cpp reads it tensor by tensor.
    if (LoadMode(mode) == LoadMode::NoMmap)
        QCOMPARE(progress.front(), 0.0f);
    else
        QVERIFY2(progress.front() > 0.0f && progress.front() <= 0.6f, qPrintable(QString::number(progress.front())));
    QCOMPARE((*m)->info().layerCount, 4u);
    QVERIFY(!(*m)->description().empty());
}

void TestModel::cancelDuringLoad()
{
    std::atomic<bool> cancel{false};
    int calls = 0;
    auto m = Model::load(TestFixtures::instance().tinyMoe().toStdString(), LoadSettings{},
                         [&](float) {
                             if (++calls == 1)
                                 cancel = true; // the next progress call aborts
                         },
                         &cancel);
    QVERIFY(!m.ok());
    QCOMPARE(m.error().code, ErrorCode::Cancelled);
}

void TestModel::cancelBeforeLoad()
{
    std::atomic<bool> cancel{true};
    auto m = Model::load(TestFixtures::instance().tinyLlama().toStdString(), LoadSettings{}, {}, &cancel);
    QVERIFY(!m.ok());
    QCOMPARE(m.error().code, ErrorCode::Cancelled);
    // The same model loads fine afterwards.
    cancel = false;
    QVERIFY(Model::load(TestFixtures::instance().tinyLlama().toStdString(), LoadSettings{}, {}, &cancel).ok());
}

void TestModel::brokenFileIsAnError()
{
    // A structurally valid GGUF whose tensor shapes llama.cpp rejects: change the layer count
    // in place so the tensor table no longer matches.
    QFile in(TestFixtures::instance().tinyMoe());
    QVERIFY(in.open(QIODevice::ReadOnly));
    QByteArray b = in.readAll();
    const QByteArray key("qwen3moe.embedding_length");
    const int at = b.indexOf(key);
    QVERIFY(at > 0);
    quint32 v = 96; // not 64: every tensor shape is now wrong
    std::memcpy(b.data() + at + key.size() + 4, &v, 4);
    const QString path = TestFixtures::instance().dir() + "/bad-shapes.gguf";
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(b);
    out.close();
    auto m = Model::load(path.toStdString(), LoadSettings{});
    QVERIFY(!m.ok());
    QCOMPARE(m.error().code, ErrorCode::LoadFailed);
    QVERIFY2(m.error().detail.find("shape") != std::string::npos || m.error().detail.find("wrong") != std::string::npos,
             m.error().detail.c_str());
}

void TestModel::cpuMoePatterns()
{
    const auto p = Model::cpuMoePatterns(3);
    QCOMPARE(p.size(), size_t(3));
    QCOMPARE(QString::fromStdString(p[2]), QString("blk\\.2\\.ffn_(up|down|gate|gate_up)_(ch|)exps"));
}

void TestModel::outOfMemoryText_data()
{
    QTest::addColumn<QString>("log");
    QTest::addColumn<bool>("oom");
    QTest::newRow("cuda") << "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 5000 MiB on device 0: "
                             "cudaMalloc failed: out of memory" << true;
    QTest::newRow("cpu") << "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 999" << true;
    QTest::newRow("shape") << "check_tensor_dims: tensor 'x' has wrong shape" << false;
}

void TestModel::outOfMemoryText()
{
    QFETCH(QString, log);
    QFETCH(bool, oom);
    QCOMPARE(looksLikeOutOfMemory(log.toStdString()), oom);
}

// A Q4_K model on a CPU that repacks Q4_K: after an mmap load the mapping keeps resident only
// the pages of the weights used in place (the plan's file pages), not the whole file.
void TestModel::copiedWeightsLeaveTheMapping()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("q4k.gguf");
    QVERIFY(TestFixtures::writeRepackedQ4K(path));
    auto info = inspectModel(path.toStdString());
    QVERIFY(info.ok());
    PlanSettings ps;
    ps.load.gpuLayers = 0;
    const PlanTarget target = targetFromHardware(probeHardware());
    const MemoryPlan plan = analyticPlan(*info, ps, target);
    if (plan.ram.use.weights() - plan.mmapResidentBytes < 256 * 1024)
        QSKIP("this CPU repacks none of this model's weights");
    auto model = Model::load(path.toStdString(), ps.load);
    QVERIFY(model.ok());
    const qint64 rss = TestFixtures::mappedResidentBytes(path);
    const qint64 planned = qint64(plan.mmapResidentBytes);
    QVERIFY2(rss >= planned * 9 / 10 && rss <= planned + 64 * 4096,
             qPrintable(QStringLiteral("resident %1 of the file (%2 bytes), in place %3")
                            .arg(rss)
                            .arg(QFileInfo(path).size())
                            .arg(planned)));
    // llama.cpp's breakdown after the load, like with like: the mapped span counts only the
    // weights used in place, so the weights in RAM are the plan's (not the file plus the copies).
    ContextSettings cs;
    cs.contextSize = 256;
    auto session = ChatSession::create(*model, cs);
    QVERIFY(session.ok());
    const double measuredWeights = double(measuredPlan(**session, plan).ram.use.weights());
    const double plannedWeights = double(plan.ram.use.weights());
    QVERIFY2(std::abs(measuredWeights - plannedWeights) <= 0.03 * plannedWeights,
             qPrintable(QStringLiteral("llama.cpp holds %1 bytes of weights in RAM, planned %2")
                            .arg(measuredWeights, 0, 'f', 0)
                            .arg(plannedWeights, 0, 'f', 0)));
}

QTEST_GUILESS_MAIN(TestModel)
#include "tst_model.moc"
