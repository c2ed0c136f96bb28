// shoehorn-cli as scripts run it: every --json output parses, also for a model whose name
// would break hand-built JSON, and carries the values the commands computed.
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

CliRun runCli(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(SHOEHORN_CLI), args);
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

QTEST_GUILESS_MAIN(TestCliJson)
#include "tst_clijson.moc"
