// GGUF inspection: fixtures give the right facts; broken files give errors, never crashes.
#include "modelinfo.h"
#include "testfixtures.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QtTest>

#include <cstring>

using namespace shoehorn;

class TestModelInfo : public QObject
{
    Q_OBJECT

private:
    QByteArray m_good;
    QString writeBytes(const QString &name, const QByteArray &bytes);

private slots:
    void initTestCase();
    void tinyFixtures_data();
    void tinyFixtures();
    void fullShapeQwen3_30b();
    void hybridAndSlidingWindow();
    void splitModel();
    void missingSplitPart();
    void malformed_data();
    void malformed();
    void randomCorruptionNeverCrashes();
    void missingFile();
    void formatBytes_data();
    void formatBytes();
};

QString TestModelInfo::writeBytes(const QString &name, const QByteArray &bytes)
{
    const QString path = TestFixtures::instance().dir() + "/" + name;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write test file");
    f.write(bytes);
    return path;
}

void TestModelInfo::initTestCase()
{
    QFile f(TestFixtures::instance().tinyMoe());
    QVERIFY(f.open(QIODevice::ReadOnly));
    m_good = f.readAll();
    QVERIFY(m_good.size() > 10000);
}

void TestModelInfo::tinyFixtures_data()
{
    QTest::addColumn<bool>("moe");
    QTest::newRow("llama") << false;
    QTest::newRow("qwen3moe") << true;
}

void TestModelInfo::tinyFixtures()
{
    QFETCH(bool, moe);
    const QString path = moe ? TestFixtures::instance().tinyMoe() : TestFixtures::instance().tinyLlama();
    auto r = inspectModel(path.toStdString());
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
    const ModelInfo &m = *r;
    QCOMPARE(QString::fromStdString(m.architecture), moe ? QString("qwen3moe") : QString("llama"));
    QCOMPARE(m.layerCount, 4u);
    QCOMPARE(m.embeddingSize, 64u);
    QCOMPARE(m.headCount, 4u);
    QCOMPARE(m.headCountKv, 2u);
    QCOMPARE(m.headSizeK, 16u);
    QCOMPARE(m.contextLength, 2048u);
    QVERIFY(m.hasChatTemplate);
    QCOMPARE(m.layers.size(), size_t(4));
    QCOMPARE(m.isMoe(), moe);
    QCOMPARE(m.expertCount, moe ? 8u : 0u);
    QCOMPARE(m.expertUsedCount, moe ? 2u : 0u);
    uint64_t sum = m.globalBytes;
    for (const auto &l : m.layers) {
        QVERIFY(l.hasAttention);
        QVERIFY(l.attentionBytes > 0);
        QCOMPARE(l.expertBytes > 0, moe);
        sum += l.totalBytes();
    }
    QCOMPARE(sum, m.tensorBytes);
    QVERIFY(m.fileSize > m.tensorBytes);
    QVERIFY(m.parameterCount > 0);
    QCOMPARE(QString::fromStdString(m.fileTypeName), QString("F16"));
}

void TestModelInfo::fullShapeQwen3_30b()
{
    const QString path = TestFixtures::instance().qwen3_30b();
    QElapsedTimer t;
    t.start();
    auto r = inspectModel(path.toStdString());
    const qint64 ms = t.elapsed();
    QVERIFY(r.ok());
    qInfo("Qwen3-30B-A3B shape: %u layers, %u experts, %u used, %.2f GB, %.2f B params, inspected in %lld ms",
          r->layerCount, r->expertCount, r->expertUsedCount, double(r->fileSize) / 1e9,
          double(r->parameterCount) / 1e9, ms);
    QCOMPARE(r->layerCount, 48u);
    QCOMPARE(r->expertCount, 128u);
    QCOMPARE(r->expertUsedCount, 8u);
    QCOMPARE(r->headCountKv, 4u);
    QCOMPARE(r->headSizeK, 128u);
    QCOMPARE(QString::fromStdString(r->fileTypeName), QString("Q4_K_M"));
    QVERIFY(r->parameterCount > 30'000'000'000ull && r->parameterCount < 31'000'000'000ull);
    QVERIFY(r->expertBytes() > r->denseBytes() * 10);
    // "A3B": about 3.3 billion parameters active per token.
    QVERIFY(r->activeParameterCount() > 3'200'000'000ull && r->activeParameterCount() < 3'500'000'000ull);
    QVERIFY(ms < 1000);
}

void TestModelInfo::hybridAndSlidingWindow()
{
    auto q = inspectModel(TestFixtures::instance().qwen35_35b().toStdString());
    QVERIFY(q.ok());
    QVERIFY(q->isHybrid());
    int attention = 0, recurrent = 0;
    for (const auto &l : q->layers) {
        attention += l.hasAttention;
        recurrent += l.hasRecurrent;
        QVERIFY(l.hasAttention != l.hasRecurrent);
        QCOMPARE(l.hasAttention, (l.index + 1) % 4 == 0); // full attention every 4th layer
    }
    QCOMPARE(attention, 10);
    QCOMPARE(recurrent, 30);
    QCOMPARE(q->fullAttentionInterval, 4u);
    QCOMPARE(q->ssmStateSize, 128u);
    auto g = inspectModel(TestFixtures::instance().gemma3_12b().toStdString());
    QVERIFY(g.ok());
    QCOMPARE(g->slidingWindow, 1024u);
    QCOMPARE(g->slidingWindowPattern, 6u);
    int swa = 0;
    for (const auto &l : g->layers)
        swa += l.slidingWindow;
    QCOMPARE(swa, 40);
    // Tied output: no output.weight, only output_norm counts as output.
    QVERIFY(std::none_of(g->tensors.begin(), g->tensors.end(),
                         [](const TensorInfo &t) { return t.name == "output.weight"; }));
    QCOMPARE(g->outputBytes, uint64_t(3840 * 4));
    QVERIFY(g->embeddingBytes > 0);
}

void TestModelInfo::splitModel()
{
    const QString first = TestFixtures::instance().splitMoe();
    auto split = inspectModel(first.toStdString());
    QVERIFY2(split.ok(), split.ok() ? "" : split.error().detail.c_str());
    auto whole = inspectModel(TestFixtures::instance().tinyMoe().toStdString());
    QVERIFY(whole.ok());
    QCOMPARE(split->files.size(), size_t(3));
    QCOMPARE(split->tensors.size(), whole->tensors.size());
    QCOMPARE(split->tensorBytes, whole->tensorBytes);
    QCOMPARE(split->expertCount, 8u);
    QCOMPARE(split->tensors.back().split, 2);
}

void TestModelInfo::missingSplitPart()
{
    const QString first = TestFixtures::instance().splitMoe();
    const QString second = QString(first).replace("-00001-of-", "-00002-of-");
    const QString moved = second + ".moved";
    QVERIFY(QFile::rename(second, moved));
    auto r = inspectModel(first.toStdString());
    QVERIFY(QFile::rename(moved, second));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::SplitMissing);
}

namespace {
QByteArray withU32(QByteArray b, int offset, quint32 v)
{
    std::memcpy(b.data() + offset, &v, 4);
    return b;
}
QByteArray withU64(QByteArray b, int offset, quint64 v)
{
    std::memcpy(b.data() + offset, &v, 8);
    return b;
}
int afterKey(const QByteArray &b, const char *key)
{
    const int at = b.indexOf(key);
    return at < 0 ? -1 : at + int(std::strlen(key));
}
} // namespace

void TestModelInfo::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    const QByteArray g = m_good;
    const int n = int(g.size());
    QTest::newRow("empty") << QByteArray() << int(ErrorCode::NotGguf);
    QTest::newRow("3 bytes") << g.left(3) << int(ErrorCode::NotGguf);
    QTest::newRow("magic only") << g.left(4) << int(ErrorCode::Truncated);
    for (int cut : {8, 16, 23, 24, 40, 100, 1000, 5000, 20000, n / 2, n - 4096, n - 1}) {
        QTest::addRow("truncated at %d", cut) << g.left(cut) << int(ErrorCode::Truncated);
    }
    QByteArray magic = g;
    magic[3] = 'X';
    QTest::newRow("bad magic") << magic << int(ErrorCode::NotGguf);
    QTest::newRow("text file") << QByteArray("hello, this is not a model\n") << int(ErrorCode::NotGguf);
    QTest::newRow("version 1") << withU32(g, 4, 1) << int(ErrorCode::UnsupportedVersion);
    QTest::newRow("version 4") << withU32(g, 4, 4) << int(ErrorCode::UnsupportedVersion);
    QTest::newRow("version max") << withU32(g, 4, 0xFFFFFFFFu) << int(ErrorCode::UnsupportedVersion);
    QTest::newRow("huge tensor count") << withU64(g, 8, quint64(1) << 40) << int(ErrorCode::Corrupt);
    QTest::newRow("huge kv count") << withU64(g, 16, quint64(1) << 40) << int(ErrorCode::Corrupt);
    QTest::newRow("tensor count off by many") << withU64(g, 8, 5000) << -1;
    QTest::newRow("huge key length") << withU64(g, 24, quint64(1) << 60) << -1;
    const int tok = afterKey(g, "tokenizer.ggml.tokens");
    QVERIFY(tok > 0);
    QTest::newRow("huge array length") << withU64(g, tok + 8, quint64(1) << 50) << -1;
    QTest::newRow("array type garbage") << withU32(g, tok + 4, 77) << -1;
    const int arch = afterKey(g, "general.architecture");
    QTest::newRow("architecture as u32") << withU32(g, arch, 4) << -1;
    QTest::newRow("huge string value") << withU64(g, arch + 4, quint64(1) << 62) << -1;
}

void TestModelInfo::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    const QString path = writeBytes("malformed.gguf", bytes);
    auto r = inspectModel(path.toStdString());
    QVERIFY(!r.ok());
    QVERIFY(!r.error().detail.empty());
    if (code >= 0)
        QCOMPARE(int(r.error().code), code);
    else
        QVERIFY(r.error().code != ErrorCode::None);
}

void TestModelInfo::randomCorruptionNeverCrashes()
{
    // Flip bytes in the metadata region: every result is a value, never an abort.
    QRandomGenerator rng(1234);
    int errors = 0;
    const int metaEnd = m_good.indexOf("tokenizer.chat_template") + 200;
    for (int i = 0; i < 300; ++i) {
        QByteArray b = m_good;
        const int flips = 1 + int(rng.bounded(4));
        for (int k = 0; k < flips; ++k)
            b[int(rng.bounded(metaEnd))] = char(rng.bounded(256));
        const QString path = writeBytes("fuzz.gguf", b);
        auto r = inspectModel(path.toStdString());
        if (!r.ok())
            ++errors;
    }
    qInfo("300 corrupted files: %d rejected with an error, %d still readable", errors, 300 - errors);
}

void TestModelInfo::missingFile()
{
    auto r = inspectModel("/nonexistent/model.gguf");
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::FileNotFound);
    auto d = inspectModel(TestFixtures::instance().dir().toStdString());
    QVERIFY(!d.ok());
    QCOMPARE(d.error().code, ErrorCode::FileUnreadable);
}

void TestModelInfo::formatBytes_data()
{
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QString>("text");
    QTest::newRow("b") << quint64(12) << "12 B";
    QTest::newRow("kib") << quint64(1536) << "1.5 KiB";
    QTest::newRow("mib") << quint64(5) * 1024 * 1024 << "5.0 MiB";
    QTest::newRow("gib") << quint64(18554591776ull) << "17.28 GiB";
}

void TestModelInfo::formatBytes()
{
    QFETCH(quint64, bytes);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(shoehorn::formatBytes(bytes)), text);
}

QTEST_GUILESS_MAIN(TestModelInfo)
#include "tst_modelinfo.moc"
