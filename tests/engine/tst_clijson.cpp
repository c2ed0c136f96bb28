// shoehorn-cli as scripts run it: every --json output parses, also for a model whose name
// would break hand-built JSON, and carries the values the commands computed; every error
// message says what went wrong.
#include "fixtures.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// A quote, a backslash and a newline: each breaks JSON that is pasted together by hand.
const QString kOddName = QStringLiteral("Odd \"quoted\" C:\\models\\tiny\nsecond line");

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

CliRun runCli(const QStringList &args, const QString &program = QStringLiteral(SHOEHORN_CLI),
             const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    CliRun r;
    if (!p.waitForStarted() || !p.waitForFinished(240000)) {
        p.kill();
        p.waitForFinished();
        r.err = "shoehorn-cli did not finish: " + p.errorString().toUtf8();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// The whole of stdout as one JSON document; an empty document (and a warning) if it is not.
QJsonDocument parseJson(const CliRun &r)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(r.out, &e);
    if (e.error != QJsonParseError::NoError)
        qWarning("not JSON (%s at %d): %s\nstderr: %s", qPrintable(e.errorString()), e.offset, r.out.constData(),
                 r.err.constData());
    return d;
}

// No "error: " line without a message after it.
bool everyErrorSaysSomething(const QByteArray &err)
{
    for (const QByteArray &line : err.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (line.startsWith("error") && (colon < 0 || line.mid(colon + 1).trimmed().isEmpty()))
            return false;
    }
    return true;
}

} // namespace

class TestCliJson : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void info();
    void plan();
    void fit();
    void bench();
    void parityRuns();
    void parityNamesWhatItNeeds();
    void parityWithoutLlamaBench();
    void errorsSaySomething_data();
    void errorsSaySomething();

private:
    QTemporaryDir m_dir;
    QString m_odd; // tiny llama with kOddName, at a path with a quote and a backslash
};

void TestCliJson::initTestCase()
{
    QVERIFY(m_dir.isValid());
    auto spec = shoehorn::fixtures::tinyLlama();
    spec.name = kOddName.toStdString();
    m_odd = m_dir.filePath(QStringLiteral("odd \"name\" back\\slash.gguf"));
    const std::string err = shoehorn::fixtures::write(spec, m_odd.toStdString());
    QVERIFY2(err.empty(), err.c_str());
}

void TestCliJson::info()
{
    const CliRun r = runCli({QStringLiteral("info"), m_odd, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parseJson(r).object();
    QCOMPARE(o.value("name").toString(), kOddName);
    QCOMPARE(o.value("path").toString(), m_odd);
    QCOMPARE(o.value("architecture").toString(), QStringLiteral("llama"));
    QCOMPARE(o.value("layer_count").toInt(), 4);
    QCOMPARE(o.value("layers").toArray().size(), 4);
}

void TestCliJson::plan()
{
    const CliRun r = runCli({QStringLiteral("plan"), m_odd, QStringLiteral("--profile"), QStringLiteral("rtx3060-12g"),
                             QStringLiteral("-c"), QStringLiteral("1024"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parseJson(r).object();
    QCOMPARE(o.value("model").toObject().value("name").toString(), kOddName);
    QCOMPARE(o.value("model").toObject().value("path").toString(), m_odd);
    QVERIFY(o.value("target").toString().contains(QStringLiteral("3060")));
    QCOMPARE(o.value("exact").toBool(true), false);
    QCOMPARE(o.value("context").toInt(), 1024);
    QCOMPARE(o.value("gpu_layers").toInt(), 5); // 4 repeating layers and the output layer
    QCOMPARE(o.value("gpus").toArray().size(), 1);
    QVERIFY(o.value("gpus").toArray().at(0).toObject().value("use").toObject().value("total").toDouble() > 0);
    QVERIFY(o.value("fits").toBool());
}

void TestCliJson::fit()
{
    const CliRun r = runCli({QStringLiteral("fit"), m_odd, QStringLiteral("--profile"), QStringLiteral("gtx1060-6g"),
                             QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parseJson(r).object();
    QCOMPARE(o.value("model").toObject().value("name").toString(), kOddName);
    QVERIFY(o.value("ok").toBool());
    QCOMPARE(o.value("blocking_lock").toString(), QStringLiteral("none"));
    QVERIFY(!o.value("explanation").toString().isEmpty());
    const QJsonObject s = o.value("settings").toObject();
    QCOMPARE(s.value("gpu_layers").toInt(), 5);
    QCOMPARE(s.value("cpu_moe_layers").toInt(), 0);
    QCOMPARE(s.value("context").toInt(), 2048); // the trained length
    QCOMPARE(s.value("type_k").toString(), QStringLiteral("f16"));
    const QJsonObject p = o.value("plan").toObject();
    QVERIFY(p.value("fits").toBool());
    QCOMPARE(p.value("gpu_layers").toInt(), 5);
}

void TestCliJson::bench()
{
    const CliRun r = runCli({QStringLiteral("bench"), m_odd, QStringLiteral("-p"), QStringLiteral("8"),
                             QStringLiteral("-n"), QStringLiteral("4"), QStringLiteral("-r"), QStringLiteral("2"),
                             QStringLiteral("-t"), QStringLiteral("2"), QStringLiteral("-ngl"), QStringLiteral("0"),
                             QStringLiteral("-o"), QStringLiteral("json")});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray rows = parseJson(r).array();
    QCOMPARE(rows.size(), 3);
    const QStringList tests{QStringLiteral("pp8"), QStringLiteral("tg4"), QStringLiteral("chat tg4")};
    for (int i = 0; i < rows.size(); ++i) {
        const QJsonObject row = rows.at(i).toObject();
        QCOMPARE(row.value("test").toString(), tests.at(i));
        QCOMPARE(row.value("model_filename").toString(), m_odd);
        QVERIFY(row.value("avg_ts").toDouble() > 0);
        QCOMPARE(row.value("samples").toInt(), 2);
    }
}

void TestCliJson::parityRuns()
{
    // Both sides as processes, the model path (with a quote and a backslash) passed through a shell.
    const CliRun r = runCli({QStringLiteral("parity"), m_odd, QStringLiteral("-p"), QStringLiteral("8"),
                             QStringLiteral("-n"), QStringLiteral("4"), QStringLiteral("-r"), QStringLiteral("1"),
                             QStringLiteral("--rounds"), QStringLiteral("1"), QStringLiteral("-t"), QStringLiteral("2"),
                             QStringLiteral("-ngl"), QStringLiteral("0")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("| pp8 |") && r.out.contains("| tg4 |"), r.out.constData());
}

void TestCliJson::parityNamesWhatItNeeds()
{
    const QString missing = m_dir.filePath(QStringLiteral("no-such/llama-bench"));
    const CliRun r = runCli({QStringLiteral("parity"), m_odd, QStringLiteral("--llama-bench"), missing});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("parity needs llama.cpp's llama-bench"), r.err.constData());
    QVERIFY2(r.err.contains(missing.toUtf8()), r.err.constData());
    QVERIFY2(everyErrorSaysSomething(r.err), r.err.constData());
}

void TestCliJson::parityWithoutLlamaBench()
{
    // What an installed shoehorn-cli (no llama-bench beside it, none on PATH) says: what it
    // needs, every place it looked, and how to get it.
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("bin")) && QDir(m_dir.path()).mkpath(QStringLiteral("empty")));
    const QString cli = m_dir.filePath(QStringLiteral("bin/shoehorn-cli"));
    QVERIFY(QFile::exists(cli) || QFile::copy(QStringLiteral(SHOEHORN_CLI), cli));
    QVERIFY(QFile::setPermissions(cli, QFile::permissions(QStringLiteral(SHOEHORN_CLI))));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), m_dir.filePath(QStringLiteral("empty")));
    const CliRun r = runCli({QStringLiteral("parity"), m_odd}, cli, env);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("parity needs llama.cpp's llama-bench from the same llama.cpp build"), r.err.constData());
    QVERIFY2(r.err.contains(m_dir.filePath(QStringLiteral("bin/llama-bench")).toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains(m_dir.filePath(QStringLiteral("empty/llama-bench")).toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains("tools/dev.sh") && r.err.contains("--llama-bench PATH"), r.err.constData());
}

void TestCliJson::errorsSaySomething_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("message");
    const QString missing = QStringLiteral("/nonexistent/model.gguf");
    QTest::newRow("missing model") << QStringList{"info", missing} << QByteArray("error (file-not-found): " + missing.toUtf8());
    QTest::newRow("no model") << QStringList{"plan"} << QByteArray("plan needs a MODEL.gguf");
    QTest::newRow("unknown command") << QStringList{"frobnicate", missing} << QByteArray("unknown command frobnicate");
    QTest::newRow("unknown profile") << QStringList{"fit", m_odd, "--profile", "nope"}
                                     << QByteArray("unknown profile nope (known: gtx1060-6g");
    QTest::newRow("bad number") << QStringList{"bench", missing, "-ngl", "many"}
                                << QByteArray("bad value for -ngl: 'many'");
    QTest::newRow("missing value") << QStringList{"bench", missing, "-ngl"} << QByteArray("missing value for -ngl");
    QTest::newRow("bad output") << QStringList{"bench", missing, "-o", "xml"} << QByteArray("-o takes md, json or csv");
    QTest::newRow("bad kv type") << QStringList{"chat", missing, "-ctk", "q9"} << QByteArray("unknown KV cache type q9");
    QTest::newRow("chat without prompt") << QStringList{"chat", missing} << QByteArray("chat needs -p TEXT");
    QTest::newRow("tune missing model") << QStringList{"tune", missing} << QByteArray("error (file-not-found)");
    QTest::newRow("parity rounds") << QStringList{"parity", missing, "--rounds", "0"}
                                   << QByteArray("--rounds must be at least 1");
}

void TestCliJson::errorsSaySomething()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, message);
    const CliRun r = runCli(args);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(message), r.err.constData());
    QVERIFY2(everyErrorSaysSomething(r.err), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCliJson)
#include "tst_clijson.moc"
