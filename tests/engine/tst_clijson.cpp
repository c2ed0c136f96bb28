// shoehorn-cli as scripts run it: every --json output parses, also for a model whose name
// would break hand-built JSON, and carries the values the commands computed; every error
// message says what went wrong.
#include "fixtures.h"
#include "testfixtures.h"

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
    void planRamParts_data();
    void planRamParts();
    void fit();
    void bench();
    void parityRuns();
    void parityNamesWhatItNeeds();
    void parityWithoutLlamaBench();
    void parityGivesLlamaBenchTheSameLoad();
    void errorsSaySomething_data();
    void errorsSaySomething();
    void lostOutputFails();
    void helpAfterTheCommand();
    void flagsTheCommandDoesNotUse_data();
    void flagsTheCommandDoesNotUse();
    void badFlagValues_data();
    void badFlagValues();
    void goodFlagValues_data();
    void goodFlagValues();
    void fitWithoutFlashAttention();
    void contextAboveTrained_data();
    void contextAboveTrained();
    void chatWithImage();
    void planAndFitCountTheProjector();

private:
    void addImageErrorRows(); // --image and --mmproj rows of errorsSaySomething
    void addArgumentCountRows(); // one argument too many, rows of errorsSaySomething
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
    // --json answers a failure in JSON on stdout too (it printed nothing there), as check-file does.
    for (const QString &cmd : {QStringLiteral("info"), QStringLiteral("plan"), QStringLiteral("fit")}) {
        const CliRun bad = runCli({cmd, m_dir.filePath("missing.gguf"), QStringLiteral("--json")});
        QCOMPARE(bad.exitCode, 1);
        const QJsonObject e = QJsonDocument::fromJson(bad.out).object();
        QVERIFY2(!e.value("ok").toBool(true) && e.value("code").toString() == "file-not-found" &&
                     e.value("detail").toString().contains("missing.gguf"),
                 bad.out.constData());
        QVERIFY(bad.err.contains("error (file-not-found)"));
    }
    // A bad command line too (exit 2, code invalid-argument): a flag's value, an unknown profile,
    // --exact with a profile (it printed nothing on stdout).
    const QList<QStringList> badLines{{"plan", m_odd, "--json", "-ngl", "many"},
                                      {"fit", m_odd, "--profile", "nope", "--json"},
                                      {"plan", m_odd, "--exact", "--profile", "gtx1060-6g", "--json"},
                                      {"info", "--json"}};
    for (const QStringList &line : badLines) {
        const CliRun bad = runCli(line);
        QCOMPARE(bad.exitCode, 2);
        const QJsonObject e = QJsonDocument::fromJson(bad.out).object();
        QVERIFY2(!e.value("ok").toBool(true) && e.value("code").toString() == "invalid-argument" &&
                     bad.err.contains(("error: " + e.value("detail").toString()).toUtf8()),
                 qPrintable(line.join(' ') + ": " + bad.out + " / " + bad.err));
    }
    // "--json" as another flag's value is that value: a failure then is text alone.
    const CliRun valued = runCli({"plan", m_dir.filePath("missing.gguf"), "-sys", "--json"});
    QCOMPARE(valued.exitCode, 1);
    QVERIFY2(valued.out.isEmpty(), valued.out.constData());
    const CliRun checked = runCli({QStringLiteral("check-file"), m_dir.filePath("missing.gguf")});
    QCOMPARE(checked.exitCode, 1); // it was 0 with {"ok": false}
    QCOMPARE(QJsonDocument::fromJson(checked.out).object().value("code").toString(), QString("file-not-found"));
    QCOMPARE(runCli({QStringLiteral("check-file"), m_odd}).exitCode, 0);
    // In text, a small model's parameters in a unit that shows them (it read "0.00 B").
    const qint64 params = o.value("parameter_count").toInteger();
    QVERIFY(params > 1000 && params < 1000000);
    const CliRun text = runCli({QStringLiteral("info"), m_odd});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("\nparameters:    " + QByteArray::number(qRound64(double(params) / 1e3)) + "K\n"),
             text.out.constData());
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

void TestCliJson::planRamParts_data()
{
    QTest::addColumn<QString>("mode");
    QTest::newRow("mmap") << QString();
    QTest::newRow("no-mmap") << QStringLiteral("--no-mmap");
    QTest::newRow("mlock") << QStringLiteral("--mlock");
}

// RAM in two parts: anonymous + file_pages == use.total, this machine's CPU, all in RAM.
void TestCliJson::planRamParts()
{
    QFETCH(QString, mode);
    QStringList args{QStringLiteral("plan"), m_odd, QStringLiteral("-ngl"), QStringLiteral("0"), QStringLiteral("--json")};
    if (!mode.isEmpty())
        args << mode;
    const CliRun r = runCli(args);
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = parseJson(r).object();
    const QJsonObject ram = o.value("ram").toObject();
    const double anonymous = ram.value("anonymous").toDouble(-1);
    const double filePages = ram.value("file_pages").toDouble(-1);
    QVERIFY(anonymous > 0);
    QVERIFY(filePages >= 0);
    QCOMPARE(anonymous + filePages, ram.value("use").toObject().value("total").toDouble());
    QCOMPARE(o.value("mmap_resident").toDouble(), filePages);
    QCOMPARE(ram.value("file_pages_locked").toBool(), mode == QStringLiteral("--mlock"));
    if (mode == QStringLiteral("--no-mmap"))
        QCOMPARE(filePages, 0.0);
    else
        QVERIFY(filePages > 0); // norms and token_embd stay in the file on every CPU
    const CliRun text = runCli(QStringList{QStringLiteral("plan"), m_odd, QStringLiteral("-ngl"), QStringLiteral("0")} +
                               (mode.isEmpty() ? QStringList{} : QStringList{mode}));
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("RAM    anonymous "));
    QVERIFY(text.out.contains(" + file pages "));
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
    const QJsonObject ram = p.value("ram").toObject();
    QCOMPARE(ram.value("anonymous").toDouble() + ram.value("file_pages").toDouble(),
             ram.value("use").toObject().value("total").toDouble());
    // In text, the fit's flags on a "settings:" line; where nothing fits, the settings asked for
    // are not on one (a script took them for the answer).
    const CliRun text = runCli({"fit", m_odd, "--profile", "gtx1060-6g"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("\nsettings: -ngl 5 --n-cpu-moe 0 -c 2048 "), text.out.constData());
    const CliRun none = runCli({"fit", m_odd, "--profile", "gtx1060-6g", "--margin", "99999", "--lock-ngl", "-ngl", "5"});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(!none.out.contains("settings:") && none.out.contains("\nasked for (does not fit): -ngl "),
             none.out.constData());
    // The margin alone in the way, GPU layers free: the CPU alone, said on the settings line.
    const CliRun alone = runCli({"fit", m_odd, "--profile", "gtx1060-6g", "--margin", "99999"});
    QCOMPARE(alone.exitCode, 0);
    QVERIFY2(alone.out.contains("everything runs on the CPU (-dev none)") &&
                 alone.out.contains("\nsettings: -ngl 0 --n-cpu-moe 0 -c 2048 -ctk f16 -ctv f16 -dev none\n"),
             alone.out.constData());
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

// llama-bench loads as our side does (devices, their split, mlock: they reached only ours), and
// what it cannot take is said. A stand-in llama-bench records its command line.
void TestCliJson::parityGivesLlamaBenchTheSameLoad()
{
    const QString bench = m_dir.filePath(QStringLiteral("fake-llama-bench"));
    const QString args = m_dir.filePath(QStringLiteral("fake-llama-bench.args"));
    QFile script(bench);
    QVERIFY(script.open(QIODevice::WriteOnly));
    script.write(("#!/bin/sh\necho \"$@\" >> '" + args + "'\n"
                  "echo '[{\"n_prompt\":8,\"n_gen\":0,\"avg_ts\":100},{\"n_prompt\":0,\"n_gen\":4,\"avg_ts\":50}]'\n")
                     .toUtf8());
    script.close();
    QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const CliRun r = runCli({"parity", m_odd, "-p", "8", "-n", "4", "-r", "1", "--rounds", "1", "-t", "1", "--llama-bench",
                             bench, "--mlock", "-dev", "none", "-c", "512", "-tb", "1"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile recorded(args);
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    const QByteArray line = recorded.readAll();
    QCOMPARE(line.count('\n'), 2); // the warm-up round and one counted
    for (const char *flag : {" -dev none ", " -lm mmap+mlock ", " -t 1 ", " -p 8 -n 4 -r 1 "})
        QVERIFY2(line.contains(flag), qPrintable(QString(flag) + " not in: " + line));
    QVERIFY2(r.err.contains("note: llama-bench has no -c, -tb ("), r.err.constData());
}

void TestCliJson::errorsSaySomething_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("message");
    const QString missing = QStringLiteral("/nonexistent/model.gguf");
    QTest::newRow("missing model") << QStringList{"info", missing}
                                   << QByteArray("error (file-not-found): " + missing.toUtf8() + ": no such file");
    QTest::newRow("no model") << QStringList{"plan"} << QByteArray("plan needs a MODEL.gguf");
    QTest::newRow("unknown command") << QStringList{"frobnicate", missing} << QByteArray("unknown command frobnicate");
    // -mg and -ts count GPUs: past them llama.cpp fails the load or drops the parts silently.
    QTest::newRow("-mg past the GPUs") << QStringList{"plan", m_odd, "--profile", "gtx1060-6g", "-mg", "5"}
                                       << QByteArray("-mg 5: the model gets 1 GPU on --profile gtx1060-6g (-mg 0)");
    QTest::newRow("-ts parts past the GPUs") << QStringList{"plan", m_odd, "--profile", "gtx1060-6g", "-ts", "1,1,1"}
                                             << QByteArray("-ts 1,1,1: 3 parts, and the model gets 1 GPU on --profile gtx1060-6g");
    QTest::newRow("-mg with -dev none") << QStringList{"plan", m_odd, "-dev", "none", "-mg", "1"}
                                        << QByteArray("-mg 1: -dev none: the model runs on the CPU");
    QTest::newRow("devices --json") << QStringList{"devices", "--json"}
                                    << QByteArray("devices takes no arguments ('--json' given)");
    // A context no memory holds: refused before llama.cpp fills the RAM with the cache's cells
    // (chat took 17 GB in 73 s before; tune ended 1 with an empty table and no word).
    const QByteArray beyond = "-c 2000000000: the KV cache alone needs";
    QTest::newRow("chat -c beyond memory") << QStringList{"chat", m_odd, "-p", "hi", "-c", "2000000000"} << beyond;
    QTest::newRow("exact plan -c beyond memory") << QStringList{"plan", m_odd, "--exact", "-c", "2000000000"} << beyond;
    QTest::newRow("serve -c beyond memory") << QStringList{"serve", m_odd, "-c", "2000000000", "--port", "0"} << beyond;
    // The service's ExecStart passes ${SHOEHORN_MODEL} as one word, empty for a preset: it was
    // "invalid argument: " (nothing named), the preset never read.
    // An address of another machine, without a key: the address is what is wrong (the key was named).
    QTest::newRow("serve: another machine's address") << QStringList{"serve", m_odd, "--host", "192.0.2.1", "--port", "0"}
                                                      << QByteArray("error: --host 192.0.2.1: not an address of this machine");
    QTest::newRow("serve: empty model word, preset") << QStringList{"serve", "", "--models-preset", missing, "--port", "0"}
                                                     << QByteArray("preset file does not exist: " + missing.toUtf8());
    QTest::newRow("tune -c beyond memory") << QStringList{"tune", m_odd, "-p", "8", "-n", "4", "-c", "2000000000"} << beyond;
    // Which file is not a model, named (it said only "the file does not start with the GGUF magic").
    const QString text = m_dir.filePath(QStringLiteral("notes.gguf"));
    QFile notes(text);
    if (notes.open(QIODevice::WriteOnly))
        notes.write("not a model\n");
    notes.close();
    QTest::newRow("not a model, named") << QStringList{"info", text}
                                        << QByteArray("error (not-gguf): " + text.toUtf8() + ": the file does not start");
    QTest::newRow("plan: not a model, named") << QStringList{"plan", text} << QByteArray("error (not-gguf): " + text.toUtf8() + ": ");
    // Said as unknown, not as a command that lacks a model (an audit, 2026-12-04).
    QTest::newRow("unknown command, no model") << QStringList{"help"} << QByteArray("unknown command help");
    // A what-if machine with flags about this one: refused (they were dropped without a word).
    QTest::newRow("profile and budget") << QStringList{"fit", m_odd, "--profile", "gtx1060-6g", "--vram-budget", "10"}
                                        << QByteArray("--profile and --vram-budget");
    QTest::newRow("profile and device") << QStringList{"plan", m_odd, "--profile", "gtx1060-6g", "-dev", "Vulkan7"}
                                        << QByteArray("-dev/--device picks among this computer's devices");
    QTest::newRow("profile for tune") << QStringList{"tune", m_odd, "--profile", "gtx1060-6g"}
                                      << QByteArray("tune runs on this computer");
    QTest::newRow("unknown profile") << QStringList{"fit", m_odd, "--profile", "nope"}
                                     << QByteArray("unknown profile nope (known: gtx1060-6g");
    QTest::newRow("bad number") << QStringList{"bench", missing, "-ngl", "many"}
                                << QByteArray("-ngl takes a whole number from -1 to 2147483647 (-1, all, or more "
                                              "than the model has: all layers), not 'many'");
    QTest::newRow("missing value") << QStringList{"bench", missing, "-ngl"} << QByteArray("missing value for -ngl");
    QTest::newRow("bad output") << QStringList{"bench", missing, "-o", "xml"} << QByteArray("-o takes md, json or csv");
    QTest::newRow("bad kv type") << QStringList{"chat", missing, "-ctk", "q9"} << QByteArray("-ctk takes f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1, not 'q9'");
    QTest::newRow("chat without prompt") << QStringList{"chat", missing} << QByteArray("chat needs -p TEXT");
    QTest::newRow("empty stop string") << QStringList{"chat", missing, "-p", "hi", "--reverse-prompt", ""}
                                       << QByteArray("--reverse-prompt takes the text that ends the answer");
    QTest::newRow("tune missing model") << QStringList{"tune", missing} << QByteArray("error (file-not-found)");
    // Read before llama-bench runs (it came back as llama-bench's whole log), and the KV type
    // the model cannot take named before the load (it was llama.cpp's "does not divide").
    QTest::newRow("parity missing model") << QStringList{"parity", missing}
                                          << QByteArray("error (file-not-found): " + missing.toUtf8() + ": no such file");
    QTest::newRow("bench kv type of another block") << QStringList{"bench", m_odd, "-ctk", "q4_0", "-r", "1"}
                                                    << QByteArray("-ctk q4_0 stores blocks of 32 values");
    QTest::newRow("parity rounds") << QStringList{"parity", missing, "--rounds", "0"}
                                   << QByteArray("--rounds takes a whole number from 1 to 1000, not '0'");
    addArgumentCountRows();
    addImageErrorRows();
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

// `shoehorn-cli plan --help` answers with the usage (it was "unknown option --help", exit 2).
void TestCliJson::helpAfterTheCommand()
{
    for (const QStringList &args : {QStringList{"plan", "--help"}, QStringList{"chat", "-h"}, QStringList{"devices", "--help"},
                                    QStringList{"bench", m_odd, "-p", "8", "--help"}}) {
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode == 0 && r.out.contains("usage: shoehorn-cli " + args.front().toUtf8() + " "),
                 qPrintable(args.join(' ') + ": " + r.out + r.err));
    }
    // The command's own line and the flags it reads, not the whole list (every command printed it).
    const CliRun plan = runCli({"plan", "--help"});
    QVERIFY2(plan.out.contains("\n  --exact ") && plan.out.contains("\n  -ngl ") && !plan.out.contains("--llama-bench") &&
                 !plan.out.contains("  bench MODEL.gguf"),
             plan.out.constData());
    const CliRun info = runCli({"info", "--help"});
    QVERIFY2(info.out.contains("--tensors") && !info.out.contains("-ngl"), info.out.constData());
    QVERIFY(runCli({"--help"}).out.contains("  bench MODEL.gguf")); // the whole usage stays for shoehorn-cli --help
}

void TestCliJson::flagsTheCommandDoesNotUse_data()
{
    // A flag the command does not read is named with the commands that do (it was dropped
    // without a word: `bench --image` measured no image); the command still runs.
    QTest::addColumn<QStringList>("args"); // the model goes after the command
    QTest::addColumn<QByteArray>("note");  // empty: no note
    QTest::newRow("plan --temp") << QStringList{"plan", "-c", "512", "--temp", "0.5"}
                                 << QByteArray("note: plan does not use --temp (chat's): it changes nothing here");
    QTest::newRow("bench --image --json")
        << QStringList{"bench", "-p", "8", "-n", "2", "-r", "1", "--image", "x.png", "--json"}
        << QByteArray("note: bench does not use --image (chat's); --json (info, plan and fit): they change nothing here");
    QTest::newRow("info -ngl, twice") << QStringList{"info", "-ngl", "2", "--n-gpu-layers", "2", "-ngl", "3"}
                                      << QByteArray("note: info does not use -ngl, --n-gpu-layers (chat, plan, fit, "
                                                    "bench, parity and tune): they change nothing here");
    QTest::newRow("fit --exact") << QStringList{"fit", "--exact", "--lock-ctx", "-c", "512"}
                                 << QByteArray("note: fit does not use --exact (plan's)");
    QTest::newRow("plan --lock-kv -r") << QStringList{"plan", "--lock-kv", "-r", "2"}
                                       << QByteArray("--lock-kv (fit's); -r (bench and parity)");
    // What each command reads stays quiet.
    QTest::newRow("plan with a chat's load flags")
        << QStringList{"plan", "-ngl", "2", "-c", "512", "-ctk", "q8_0", "-fa", "on", "-t", "1", "--no-check", "-np", "2", "--json"}
        << QByteArray();
    QTest::newRow("fit's own") << QStringList{"fit", "--lock-ctx", "-c", "512", "--margin", "0", "--vram-budget", "0", "--json"}
                               << QByteArray();
    QTest::newRow("info's own") << QStringList{"info", "--json", "--tensors"} << QByteArray();
    QTest::newRow("bench's own") << QStringList{"bench", "-p", "8", "-n", "2", "-r", "1", "-o", "json", "-t", "1"}
                                 << QByteArray();
    QTest::newRow("parity's own") << QStringList{"parity", "-p", "8", "-n", "2", "-r", "1", "--rounds", "1", "-t", "1"}
                                  << QByteArray();
    QTest::newRow("tune's own") << QStringList{"tune", "-p", "8", "-n", "2", "--margin", "0", "--vram-budget", "0", "-t", "1"}
                                << QByteArray();
    QTest::newRow("chat's own") << QStringList{"chat", "-p", "hi", "-n", "2", "--temp", "0", "--seed", "1", "-sys", "s",
                                               "--no-think", "--reverse-prompt", "zz", "--progress", "-t", "1"}
                                << QByteArray();
}

void TestCliJson::flagsTheCommandDoesNotUse()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, note);
    args.insert(1, m_odd);
    const CliRun r = runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    if (note.isEmpty())
        QVERIFY2(!r.err.contains("does not use"), r.err.constData());
    else
        QVERIFY2(r.err.contains(note), r.err.constData());
}

// Output that could not be written fails the command (a full disk, a closed pipe under a script):
// it ended 0 with the answer lost before.
void TestCliJson::lostOutputFails()
{
    QProcess p;
    p.setStandardOutputFile(QStringLiteral("/dev/full"));
    p.start(QStringLiteral(SHOEHORN_CLI), {"info", m_odd, "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(err.contains("error: the output could not be written (No space left on device)"), err.constData());
}

void TestCliJson::badFlagValues_data()
{
    // One row per flag and bad value: refused before anything loads (exit 2), with a message
    // that names the flag, what it takes and the value given.
    QTest::addColumn<QStringList>("args"); // the model goes after the command
    QTest::addColumn<QByteArray>("message");
    auto row = [](const char *cmd, const char *flag, const char *value, const char *takes) {
        QTest::addRow("%s %s %s", cmd, flag, value)
            << QStringList{cmd, flag, value} << (QByteArray(flag) + " takes " + takes + ", not '" + value + "'");
    };
    const char *ctx = "a whole number from 0 to 2147483647 (0: the model's trained length)";
    row("plan", "-c", "-1", ctx);
    row("plan", "-c", "-256", ctx);
    row("plan", "-c", "99999999999", ctx);
    row("chat", "-c", "4k", ctx);
    const char *ngl = "a whole number from -1 to 2147483647 (-1, all, or more than the model has: all layers)";
    row("plan", "-ngl", "-5", ngl);
    row("chat", "-ngl", "1.5", ngl);
    row("plan", "--n-cpu-moe", "-3", "a whole number from 0 to 2147483647 (the layer count or more: all)");
    row("plan", "-mg", "-1", "a whole number from 0 to 255");
    row("plan", "-t", "-1", "a whole number from 0 to 512 (0: the physical cores)");
    row("bench", "-t", "513", "a whole number from 0 to 512 (0: the physical cores)");
    row("plan", "-tb", "-2", "a whole number from 0 to 512 (0: as -t)");
    row("plan", "-b", "0", "a whole number from 1 to 2147483647");
    row("plan", "-ub", "-512", "a whole number from 1 to 2147483647");
    row("chat", "-n", "0", "a whole number from -1 to 2147483647 except 0 (-1: until the answer ends)");
    row("chat", "-n", "-2", "a whole number from -1 to 2147483647 except 0 (-1: until the answer ends)");
    row("chat", "--seed", "-2", "a whole number from -1 to 4294967295 (-1: random)");
    row("chat", "--seed", "4294967296", "a whole number from -1 to 4294967295 (-1: random)");
    row("chat", "--temp", "-0.5", "a number from 0 to 100 (0: greedy)");
    row("chat", "--temp", "nan", "a number from 0 to 100 (0: greedy)");
    row("chat", "--top-k", "-1", "a whole number from 0 to 2147483647 (0: off)");
    row("chat", "--top-p", "1.5", "a number from 0 to 1 (1: off)");
    row("chat", "--top-p", "-0.1", "a number from 0 to 1 (1: off)");
    row("chat", "--min-p", "2", "a number from 0 to 1 (0: off)");
    row("chat", "--repeat-penalty", "0", "a number above 0, up to 100 (1: off)");
    row("chat", "--presence-penalty", "3", "a number from -2 to 2 (0: off)");
    row("plan", "-np", "0", "a whole number from 1 to 256");
    row("plan", "-np", "300", "a whole number from 1 to 256");
    row("plan", "--vram-budget", "1,x", "whole numbers from 0 to 16777216 (MiB; 0: no cap), one value or one per device separated by commas");
    row("fit", "--vram-budget", "-5", "whole numbers from 0 to 16777216 (MiB; 0: no cap), one value or one per device separated by commas");
    row("fit", "--margin", "-1", "whole numbers from 0 to 16777216 (MiB), one value or one per device separated by commas");
    row("fit", "--margin", "512,", "whole numbers from 0 to 16777216 (MiB), one value or one per device separated by commas");
    row("plan", "-ts", "1,-2", "proportions per device separated by commas, e.g. 3,1 (remote machines first, then GPUs, as `plan` lists them)");
    row("plan", "-ts", "", "proportions per device separated by commas, e.g. 3,1 (remote machines first, then GPUs, as `plan` lists them)");
    row("bench", "-r", "0", "a whole number from 1 to 10000");
    row("parity", "--rounds", "-1", "a whole number from 1 to 1000");
    row("bench", "-p", "0", "a whole number of prompt tokens from 1 to 1048576 for bench");
    row("tune", "-p", "-5", "a whole number of prompt tokens from 1 to 1048576 for tune");
    row("parity", "-p", "hello", "a whole number of prompt tokens from 1 to 1048576 for parity");
    row("bench", "-n", "-1", "a whole number of generated tokens from 1 to 1048576 for bench");
    row("bench", "-n", "0", "a whole number of generated tokens from 1 to 1048576 for bench");
    row("chat", "-n", "99999999999",
        "a whole number from -2147483647 to 2147483647 (chat: -1 until the answer ends; bench, parity, tune: tokens, from 1)");
    const char *kv = "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1";
    row("plan", "-ctk", "q9", kv);
    row("chat", "-ctv", "Q8_0", kv);
    row("plan", "-fa", "maybe", "auto, on or off");
    QTest::newRow("bench -o xml") << QStringList{"bench", "-o", "xml"} << QByteArray("-o takes md, json or csv, not xml");
    // A quantized V cache without flash attention: llama.cpp refuses it, so every command does.
    for (const char *cmd : {"plan", "fit", "chat", "bench", "tune"})
        QTest::addRow("%s -fa off -ctv q8_0", cmd)
            << QStringList{cmd, "-fa", "off", "-ctk", "q8_0", "-ctv", "q8_0", "-p", "8"}
            << QByteArray("-ctv q8_0 needs flash attention (-fa on or auto); llama.cpp refuses a quantized V cache "
                          "without it");
}

void TestCliJson::badFlagValues()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, message);
    args.insert(1, m_odd);
    const CliRun r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("error: " + message), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void TestCliJson::goodFlagValues_data()
{
    // What llama.cpp takes stays taken.
    QTest::addColumn<QStringList>("args");
    QTest::newRow("-ngl 99") << QStringList{"-ngl", "99"};
    QTest::newRow("-ngl all") << QStringList{"-ngl", "all"};
    QTest::newRow("-ngl -1") << QStringList{"-ngl", "-1"};
    QTest::newRow("-c 0") << QStringList{"-c", "0"};
    QTest::newRow("--n-cpu-moe 999") << QStringList{"--n-cpu-moe", "999"};
    QTest::newRow("-t 0") << QStringList{"-t", "0"};
    QTest::newRow("--seed -1") << QStringList{"--seed", "-1"};
    QTest::newRow("-n -1") << QStringList{"-n", "-1"};
    QTest::newRow("--temp 0") << QStringList{"--temp", "0"};
    QTest::newRow("--presence-penalty -1.5") << QStringList{"--presence-penalty", "-1.5"};
    QTest::newRow("-fa off -ctk q8_0") << QStringList{"-fa", "off", "-ctk", "q8_0"};
    QTest::newRow("-fa auto -ctv q8_0") << QStringList{"-fa", "auto", "-ctk", "q8_0", "-ctv", "q8_0"};
    QTest::newRow("-mg 0 -ts 1 on a profile's GPU") << QStringList{"--profile", "gtx1060-6g", "-mg", "0", "-ts", "1"};
}

void TestCliJson::goodFlagValues()
{
    QFETCH(QStringList, args);
    const CliRun r = runCli(QStringList{"plan", m_odd, "-c", "1024"} + args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
}

void TestCliJson::fitWithoutFlashAttention()
{
    // Qwen3-30B-A3B on 6 GB wants a q8_0 cache; with -fa off only K may be quantized.
    const QString q30 = TestFixtures::instance().qwen3_30b();
    const CliRun r = runCli({"fit", q30, "--profile", "gtx1060-6g", "-fa", "off", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject s = parseJson(r).object().value("settings").toObject();
    QCOMPARE(s.value("type_v").toString(), QStringLiteral("f16"));
    // What fit recommends, plan takes.
    const CliRun p = runCli({"plan", q30, "--profile", "gtx1060-6g", "-fa", "off", "-ngl",
                             QString::number(s.value("gpu_layers").toInt()), "--n-cpu-moe",
                             QString::number(s.value("cpu_moe_layers").toInt()), "-c",
                             QString::number(s.value("context").toInt()), "-ctk", s.value("type_k").toString(), "-ctv",
                             s.value("type_v").toString(), "--json"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY(parseJson(p).object().value("fits").toBool());
}

void TestCliJson::contextAboveTrained_data()
{
    // The tiny model is trained for 2048 tokens.
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("warning"); // empty: none
    const QByteArray overflow = "warning: -c 8192 is above the model's trained context of 2048 tokens: llama.cpp's "
                                "server gives a conversation at most 2048 of them";
    QTest::newRow("plan") << QStringList{"plan", "-c", "8192"} << overflow;
    QTest::newRow("plan within") << QStringList{"plan", "-c", "2048"} << QByteArray();
    // Without -c: 4096, or the trained context where that is less (it warned of a -c not given).
    QTest::newRow("plan without -c") << QStringList{"plan"} << QByteArray();
    QTest::newRow("chat without -c") << QStringList{"chat", "-p", "Hi", "-n", "1"} << QByteArray();
    QTest::newRow("fit locked") << QStringList{"fit", "-c", "8192", "--lock-ctx"} << overflow;
    QTest::newRow("fit") << QStringList{"fit", "-c", "8192"}
                         << QByteArray("warning: -c 8192 is above the model's trained context of 2048 tokens: fit "
                                       "plans for at most 2048 (--lock-ctx keeps -c as given)");
    QTest::newRow("chat") << QStringList{"chat", "-c", "8192", "-p", "Hi", "-n", "1", "-t", "2"} << overflow;
}

void TestCliJson::contextAboveTrained()
{
    QFETCH(QStringList, args);
    QFETCH(QByteArray, warning);
    args.insert(1, m_odd);
    const CliRun r = runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    if (warning.isEmpty())
        QVERIFY2(!r.err.contains("warning"), r.err.constData());
    else
        QVERIFY2(r.err.contains(warning), r.err.constData());
    if (args.front() == "chat")
        return;
    // --json carries the same sentences.
    const CliRun j = runCli(args + QStringList{"--json"});
    const QJsonArray warnings = parseJson(j).object().value("warnings").toArray();
    QCOMPARE(warnings.isEmpty(), warning.isEmpty());
    if (!warning.isEmpty())
        QVERIFY(warning.contains(warnings.at(0).toString().left(60).toUtf8()));
}

void TestCliJson::chatWithImage()
{
    TestFixtures &f = TestFixtures::instance();
    const QString img = m_dir.filePath("picture.bmp");
    QFile out(img);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(TestFixtures::bmpImage(96, 64));
    out.close();
    const QStringList base{"chat", f.tinyVision(), "-c", "2048", "-n", "4", "--seed", "3", "-p", "What is it?"};
    const CliRun plain = runCli(base);
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    const CliRun seen = runCli(base + QStringList{"--mmproj", f.projector(), "--image", img, "--image", img});
    QVERIFY2(seen.exitCode == 0, seen.err.constData());
    // "prompt: N tokens": two images of 3x2 merged patches (or llama.cpp's minimum) each.
    const QRegularExpression tokens(QStringLiteral("prompt: (\\d+) tokens"));
    const int before = tokens.match(QString::fromUtf8(plain.err)).captured(1).toInt();
    const int after = tokens.match(QString::fromUtf8(seen.err)).captured(1).toInt();
    QVERIFY2(before > 0 && after >= before + 12, seen.err.constData());
}

void TestCliJson::planAndFitCountTheProjector()
{
    TestFixtures &f = TestFixtures::instance();
    const QStringList planArgs{"plan", f.tinyVision(), "-c", "2048", "-ngl", "0", "--json"};
    const double without = parseJson(runCli(planArgs)).object().value("ram").toObject().value("use").toObject().value("total").toDouble();
    const CliRun r = runCli(planArgs + QStringList{"--mmproj", f.projector(), "--no-mmproj-offload"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject use = parseJson(r).object().value("ram").toObject().value("use").toObject();
    QVERIFY(use.value("projector").toDouble() > 0);
    QCOMPARE(use.value("total").toDouble(), without + use.value("projector").toDouble());
    const QJsonObject projector = parseJson(r).object().value("projector").toObject();
    QCOMPARE(projector.value("tokens_1024x1024").toInt(), 1024); // 32 x 32 merged patches
    QCOMPARE(projector.value("context_share_1024x1024").toDouble(), 0.5);
    QCOMPARE(projector.value("precision").toString(), QString("F16"));
    // On a GPU by default, as llama.cpp puts it.
    const CliRun gpu = runCli({"plan", f.tinyVision(), "--profile", "rtx3060-12g", "--mmproj", f.projector(), "--json"});
    QVERIFY2(gpu.exitCode == 0, gpu.err.constData());
    const QJsonObject g = parseJson(gpu).object();
    QVERIFY(g.value("gpus").toArray().at(0).toObject().value("use").toObject().value("projector").toDouble() > 0);
    QCOMPARE(g.value("ram").toObject().value("use").toObject().value("projector").toDouble(), 0.0);
    const CliRun fit = runCli({"fit", f.tinyVision(), "--profile", "gtx1060-6g", "--mmproj", f.projector(), "--json"});
    QVERIFY2(fit.exitCode == 0, fit.err.constData());
    QVERIFY(parseJson(fit).object().value("plan").toObject().value("gpus").toArray().at(0).toObject().value("use")
                .toObject().value("projector").toDouble() > 0);
}

void TestCliJson::addArgumentCountRows()
{
    // A second model, or a value that lost its quotes (the answer was to "two" alone).
    QTest::newRow("two models") << QStringList{"info", m_odd, m_odd}
                                << QByteArray("error: info takes one model; '" + m_odd.toUtf8() + "' is one argument too many\n");
    QTest::newRow("value without quotes") << QStringList{"chat", m_odd, "-p", "two", "words"}
                                          << QByteArray("error: chat takes one model; 'words' is one argument too many: "
                                                        "after -p two, a value with spaces needs quotes (-p \"two words\")");
    QTest::newRow("tune: a margin per device") << QStringList{"tune", m_odd, "--margin", "100,200"}
                                               << QByteArray("error: tune takes one --margin, kept free on every device");
    // After a number's value the word did not lose quotes: no hint to quote "-c 512 other.gguf".
    QTest::newRow("after a number") << QStringList{"chat", m_odd, "-p", "hi", "-c", "512", "other.gguf"}
                                    << QByteArray("error: chat takes one model; 'other.gguf' is one argument too many\n");
    QTest::newRow("-m and a positional") << QStringList{"plan", "-m", m_odd, "words"}
                                         << QByteArray("error: plan takes one model; 'words' is one argument too many");
}

void TestCliJson::addImageErrorRows()
{
    TestFixtures &f = TestFixtures::instance();
    const QString text = m_dir.filePath("notes.png");
    QFile t(text);
    QVERIFY(t.open(QIODevice::WriteOnly));
    t.write("these are notes, not a picture");
    t.close();
    const QStringList chat{"chat", f.tinyVision(), "-p", "Look."};
    QTest::newRow("image without projector") << chat + QStringList{"--image", text}
                                             << QByteArray("--image needs --mmproj F");
    QTest::newRow("not an image") << chat + QStringList{"--mmproj", f.projector(), "--image", text}
                                  << QByteArray("--image " + text.toUtf8() + ": the file is not an image");
    QTest::newRow("missing image") << chat + QStringList{"--mmproj", f.projector(), "--image", "/nonexistent.png"}
                                   << QByteArray("--image /nonexistent.png: cannot open it");
    QTest::newRow("projector of another model")
        << chat + QStringList{"--mmproj", f.projectorMismatch()} << QByteArray("error (projector-mismatch)");
    // A chat template that crashes llama.cpp: the helper process takes the crash, chat says why.
    const QString recursive =
        f.withTemplate("recursive.gguf", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}");
    QTest::newRow("template crashes llama.cpp")
        << QStringList{"chat", recursive, "-p", "hi"}
        << QByteArray("error (file-check-failed): recursive.gguf: llama.cpp crashed while rendering the chat template");
    QTest::newRow("model as projector") << QStringList{"plan", f.tinyVision(), "--mmproj", f.tinyVision()}
                                        << QByteArray("the file is not a projector");
}

QTEST_GUILESS_MAIN(TestCliJson)
#include "tst_clijson.moc"
