// A broken or hostile GGUF is refused by the inspector, before llama.cpp sees it, with the
// right error code and a detail that names the field. Each row is made from a valid fixture.
#include "modelinfo.h"
#include "testfixtures.h"

#include <gguf.h>

#include <QFile>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include <sys/stat.h>
#include <unistd.h>

using namespace shoehorn;

namespace {

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

QString writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = TestFixtures::instance().dir() + "/" + name;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
    return path;
}

// The fixture with its metadata changed by `edit` (ggml's gguf API) and its tensor data as it was.
QByteArray rewritten(const QString &fixture, const std::function<void(gguf_context *)> &edit)
{
    gguf_context *ctx = gguf_init_from_file(fixture.toUtf8().constData(), gguf_init_params{true, nullptr});
    if (!ctx)
        qFatal("cannot parse the fixture");
    const size_t oldDataOffset = gguf_get_data_offset(ctx);
    edit(ctx);
    const QString meta = TestFixtures::instance().dir() + "/meta.gguf";
    if (!gguf_write_to_file(ctx, meta.toUtf8().constData(), true))
        qFatal("cannot write the metadata");
    gguf_free(ctx);
    return readAll(meta) + readAll(fixture).mid(qsizetype(oldDataOffset));
}

// `from` replaced by `to` (same length) at its first occurrence.
QByteArray patched(QByteArray b, const QByteArray &from, const QByteArray &to)
{
    const qsizetype at = b.indexOf(from);
    if (at < 0 || from.size() != to.size())
        qFatal("cannot patch %s", from.constData());
    std::memcpy(b.data() + at, to.constData(), size_t(to.size()));
    return b;
}

// `v` written `skip` bytes after the end of the first occurrence of `key`.
template <typename T>
QByteArray afterKey(QByteArray b, const char *key, int skip, T v)
{
    const qsizetype at = b.indexOf(key);
    if (at < 0)
        qFatal("no key %s", key);
    std::memcpy(b.data() + at + qsizetype(std::strlen(key)) + skip, &v, sizeof v);
    return b;
}

void setTokens(gguf_context *ctx, const std::function<void(std::vector<std::string> &)> &edit)
{
    const int64_t id = gguf_find_key(ctx, "tokenizer.ggml.tokens");
    std::vector<std::string> tokens;
    for (size_t i = 0; i < gguf_get_arr_n(ctx, id); ++i)
        tokens.emplace_back(gguf_get_arr_str(ctx, id, i));
    edit(tokens);
    std::vector<const char *> ptrs;
    for (const auto &t : tokens)
        ptrs.push_back(t.c_str());
    gguf_set_arr_str(ctx, "tokenizer.ggml.tokens", ptrs.data(), ptrs.size());
}

} // namespace

class TestModelChecks : public QObject
{
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
    void missingSplitPartNamed();
    void symlinkLoop();
    void noPermission();
};

void TestModelChecks::refused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("detail"); // what the detail must contain
    const QString moe = TestFixtures::instance().tinyMoe();
    const QByteArray good = readAll(moe);
    const int corrupt = int(ErrorCode::Corrupt);
    auto u32 = [&](const char *key, uint32_t v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_u32(c, key, v); });
    };
    auto f32 = [&](const char *key, float v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_f32(c, key, v); });
    };
    auto str = [&](const char *key, const char *v) {
        return rewritten(moe, [=](gguf_context *c) { gguf_set_val_str(c, key, v); });
    };
    QTest::newRow("layers over 512") << u32("qwen3moe.block_count", 600) << corrupt
                                     << "qwen3moe.block_count is 600, more than llama.cpp's limit of 512";
    QTest::newRow("no expert used") << u32("qwen3moe.expert_used_count", 0) << corrupt
                                    << "qwen3moe.expert_used_count is 0 but the model has 8 experts";
    QTest::newRow("more used than experts") << u32("qwen3moe.expert_used_count", 9) << corrupt
                                            << "qwen3moe.expert_used_count is 9 but the model has 8 experts";
    QTest::newRow("experts over 1024") << u32("qwen3moe.expert_count", 2000) << corrupt
                                       << "qwen3moe.expert_count is 2000, more than llama.cpp's limit of 1024";
    const char *eps = "qwen3moe.attention.layer_norm_rms_epsilon";
    QTest::newRow("eps negative") << f32(eps, -1e-6f) << corrupt << "layer_norm_rms_epsilon is -1e-06";
    QTest::newRow("eps nan") << f32(eps, std::nanf("")) << corrupt << "layer_norm_rms_epsilon is nan";
    QTest::newRow("eps inf") << f32(eps, std::numeric_limits<float>::infinity()) << corrupt
                             << "layer_norm_rms_epsilon is inf";
    const QByteArray aligned = u32("general.alignment", 32);
    QTest::newRow("alignment 3") << afterKey(aligned, "general.alignment", 4, quint32(3)) << corrupt
                                 << "general.alignment is 3, not a power of two";
    QTest::newRow("tensor past the end") << good.left(good.size() - 100) << int(ErrorCode::Truncated)
                                         << "' ends at byte";
    QTest::newRow("cut in the metadata") << good.left(1000) << int(ErrorCode::Truncated) << "the file ends inside";
    QTest::newRow("duplicate tensor name")
        << patched(good, "blk.0.attn_k.weight", "blk.0.attn_q.weight") << corrupt
        << "duplicate tensor name 'blk.0.attn_q.weight'";
    QTest::newRow("string length 2^63") << afterKey(good, "general.architecture", 4, quint64(1) << 63) << corrupt
                                        << "metadata key 'general.architecture' has a string length of "
                                           "9223372036854775808";
    QTest::newRow("array length 2^50") << afterKey(good, "tokenizer.ggml.tokens", 8, quint64(1) << 50) << corrupt
                                       << "metadata key 'tokenizer.ggml.tokens' is an array of 1125899906842624";
    QTest::newRow("unknown tokenizer") << str("tokenizer.ggml.model", "bogus") << corrupt
                                       << "tokenizer.ggml.model is 'bogus', a tokenizer llama.cpp does not know";
    QTest::newRow("no vocabulary") << str("tokenizer.ggml.model", "none") << corrupt
                                   << "tokenizer.ggml.model is 'none'";
    QTest::newRow("repeated token")
        << rewritten(moe, [](gguf_context *c) { setTokens(c, [](auto &t) { t[300] = t[301]; }); }) << corrupt
        << "tokenizer.ggml.tokens has the token";
    QTest::newRow("SPM without byte tokens") << patched(good, "<0x0A>", "<0y0A>") << corrupt
                                             << "tokenizer.ggml.tokens has no byte token <0x0A>";
}

void TestModelChecks::refused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QFETCH(QString, detail);
    const QString file = writeFile("refused.gguf", bytes);
    auto r = inspectModel(file.toStdString());
    QVERIFY(!r.ok());
    const QString got = QString::fromStdString(r.error().detail);
    QVERIFY2(got.contains(detail), qPrintable(got));
    QVERIFY2(!got.contains('\n') && !got.contains("gguf_init"), qPrintable(got));
    QCOMPARE(errorCodeName(r.error().code), errorCodeName(ErrorCode(code)));
    // The same file through shoehorn-cli info and chat: an exit with the message, never a crash
    // or a hang (chat would load it in-process after the check).
    for (const QStringList &args : {QStringList{"info", file}, QStringList{"chat", file, "-p", "hi", "-n", "4"}}) {
        QProcess p;
        p.start(QStringLiteral(SHOEHORN_CLI), args);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains(QStringLiteral("error (%1): ").arg(errorCodeName(ErrorCode(code)))) && err.contains(detail),
                 qPrintable(args.first() + ": " + err));
    }
}

void TestModelChecks::missingSplitPartNamed()
{
    const QString first = TestFixtures::instance().splitMoe();
    const QString second = QString(first).replace("-00001-of-", "-00002-of-");
    QVERIFY(QFile::rename(second, second + ".moved"));
    auto r = inspectModel(first.toStdString());
    QVERIFY(QFile::rename(second + ".moved", second));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::SplitMissing);
    QCOMPARE(QString::fromStdString(r.error().detail), "part 2 of 3 is missing: " + second);
}

void TestModelChecks::symlinkLoop()
{
    const QString a = TestFixtures::instance().dir() + "/loop-a.gguf";
    const QString b = TestFixtures::instance().dir() + "/loop-b.gguf";
    QVERIFY(::symlink(qPrintable(b), qPrintable(a)) == 0);
    QVERIFY(::symlink(qPrintable(a), qPrintable(b)) == 0);
    auto r = inspectModel(a.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::FileUnreadable);
    QVERIFY2(QString::fromStdString(r.error().detail).contains("loops"), r.error().detail.c_str());
}

void TestModelChecks::noPermission()
{
    if (::geteuid() == 0)
        QSKIP("root reads every file");
    const QString path = writeFile("locked.gguf", readAll(TestFixtures::instance().tinyLlama()));
    QVERIFY(::chmod(qPrintable(path), 0) == 0);
    auto r = inspectModel(path.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::FileUnreadable);
    QVERIFY2(QString::fromStdString(r.error().detail).contains("no permission"), r.error().detail.c_str());
}

QTEST_GUILESS_MAIN(TestModelChecks)
#include "tst_modelchecks.moc"
