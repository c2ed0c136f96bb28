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
    void randomCorruption();
    void missingFile();
    void formatBytes_data();
    void formatBytes();
    void formatParameterCount_data();
    void formatParameterCount();
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

namespace {
// What a damaged GGUF may be reported as: a problem with the file, never another kind of error.
bool plausibleFileError(ErrorCode c)
{
    return c == ErrorCode::NotGguf || c == ErrorCode::UnsupportedVersion || c == ErrorCode::Truncated ||
           c == ErrorCode::Corrupt;
}

// Empty when the facts agree with each other and with the file; otherwise what does not.
QString inconsistency(const ModelInfo &m, qint64 fileSize)
{
    if (m.fileSize != uint64_t(fileSize))
        return QString("file size %1, the file has %2").arg(m.fileSize).arg(fileSize);
    if (m.architecture.empty() || m.architecture.size() > 64)
        return QString("architecture '%1'").arg(QString::fromStdString(m.architecture));
    if (m.layerCount == 0 || m.layerCount > 4096 || m.layers.size() != m.layerCount)
        return QString("layer count %1 with %2 layers").arg(m.layerCount).arg(m.layers.size());
    if (m.expertUsedCount > m.expertCount)
        return QString("%1 of %2 experts used").arg(m.expertUsedCount).arg(m.expertCount);
    for (uint32_t v : {m.embeddingSize, m.headCount, m.headCountKv, m.contextLength, m.expertCount})
        if (v > (1u << 24))
            return QString("absurd hyperparameter %1").arg(v);
    if (m.tensors.empty())
        return "no tensors";
    if (m.tensorBytes > m.fileSize)
        return QString("%1 tensor bytes in a %2 byte file").arg(m.tensorBytes).arg(m.fileSize);
    if (m.expertParameterCount > m.parameterCount)
        return "more expert parameters than parameters";
    uint64_t bytes = 0, elements = 0, global = 0;
    for (const TensorInfo &t : m.tensors) {
        if (t.bytes > m.fileSize)
            return QString("tensor %1 larger than the file").arg(QString::fromStdString(t.name));
        bytes += t.bytes;
        elements += t.elements;
        if (t.layer < 0 || t.layer >= int(m.layerCount))
            global += t.bytes;
    }
    if (bytes != m.tensorBytes || elements != m.parameterCount || global != m.globalBytes)
        return "tensor sums disagree with the totals";
    uint64_t layers = m.globalBytes;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        if (m.layers[i].index != int(i))
            return QString("layer %1 has index %2").arg(i).arg(m.layers[i].index);
        layers += m.layers[i].totalBytes();
    }
    if (layers != m.tensorBytes)
        return "layer bytes and global bytes do not add up to the tensor bytes";
    if (m.outputBytes + m.embeddingBytes > m.globalBytes)
        return "output and embedding bytes exceed the global bytes";
    return {};
}
} // namespace

void TestModelInfo::randomCorruption()
{
    // Overwrite bytes anywhere in the header (metadata and tensor table, not the weights) with
    // random bytes or with boundary integers. Every file gives a value, never an abort: a file
    // error with a reason, or facts that agree with each other. Fixed seed, so every run
    // inspects the same 2000 files (about a second).
    auto good = inspectModel(TestFixtures::instance().tinyMoe().toStdString());
    QVERIFY(good.ok());
    const int headerEnd = int(m_good.size() - qint64(good->tensorBytes));
    QVERIFY(headerEnd > 1000 && headerEnd < m_good.size());
    QVERIFY(m_good.indexOf("tokenizer.chat_template") < headerEnd);
    QRandomGenerator rng(1234);
    const quint64 boundaries[] = {0, 1, 0x7F, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, quint64(1) << 32,
                                  quint64(1) << 63, ~quint64(0)};
    int errors = 0;
    QElapsedTimer timer;
    timer.start();
    const int files = 2000;
    for (int i = 0; i < files; ++i) {
        QByteArray b = m_good;
        QString what;
        if (i % 2 == 0) {
            const int flips = 1 + int(rng.bounded(4));
            for (int k = 0; k < flips; ++k) {
                const int at = int(rng.bounded(headerEnd));
                b[at] = char(rng.bounded(256));
                what += QString(" byte@%1").arg(at);
            }
        } else {
            const int at = int(rng.bounded(headerEnd - 8));
            const quint64 v = boundaries[rng.bounded(int(std::size(boundaries)))];
            std::memcpy(b.data() + at, &v, rng.bounded(2) ? 8 : 4);
            what = QString(" int %1@%2").arg(v).arg(at);
        }
        const QString path = writeBytes("fuzz.gguf", b);
        auto r = inspectModel(path.toStdString());
        const QByteArray context = QString("file %1:%2").arg(i).arg(what).toUtf8();
        if (!r.ok()) {
            ++errors;
            QVERIFY2(!r.error().detail.empty(), context.constData());
            QVERIFY2(plausibleFileError(r.error().code),
                     (context + " gave " + errorCodeName(r.error().code)).constData());
        } else {
            const QString why = inconsistency(*r, b.size());
            QVERIFY2(why.isEmpty(), (context + ": " + why.toUtf8()).constData());
        }
    }
    qInfo("%d corrupted files in %lld ms: %d rejected with an error, %d still readable", files, timer.elapsed(),
          errors, files - errors);
    // Both branches above ran: the corruption reaches parts that matter and parts that do not.
    QVERIFY(errors > files / 10);
    QVERIFY(errors < files);
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

void TestModelInfo::formatParameterCount_data()
{
    QTest::addColumn<quint64>("count");
    QTest::addColumn<QString>("text");
    QTest::newRow("tiny") << quint64(200000) << "200K";
    QTest::newRow("just under a million: 1M, not 1000K") << quint64(999999) << "1M";
    QTest::newRow("millions") << quint64(596049920) << "596M";
    QTest::newRow("just under a billion: 1.0B, not 1000M") << quint64(999900000) << "1.0B";
    QTest::newRow("30B-A3B") << quint64(30532122624ull) << "30.5B";
}

void TestModelInfo::formatParameterCount()
{
    QFETCH(quint64, count);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(shoehorn::formatParameterCount(count)), text);
}

QTEST_GUILESS_MAIN(TestModelInfo)
#include "tst_modelinfo.moc"
