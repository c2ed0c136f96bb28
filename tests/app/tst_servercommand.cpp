// The llama-server command line offered for copying: each setting becomes its flag, and a
// POSIX shell reads the line back as the arguments meant, whatever the model's path holds.
#include "servercommand.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace shoehorn;

Q_DECLARE_METATYPE(ModelSettings)

namespace {

// A llama-server that prints its arguments, NUL-separated, first on the PATH of shellWords.
QTemporaryDir *fakeServerDir()
{
    static QTemporaryDir dir;
    return &dir;
}

// What /bin/sh makes of the command: llama-server's argv, or an empty list and `error`.
QStringList shellWords(const QString &command, QString *error)
{
    QProcess sh;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", fakeServerDir()->path() + ":" + env.value("PATH"));
    sh.setProcessEnvironment(env);
    sh.start("/bin/sh", {"-c", command});
    if (!sh.waitForFinished(10000) || sh.exitStatus() != QProcess::NormalExit || sh.exitCode() != 0) {
        *error = QString::fromLocal8Bit(sh.readAllStandardError()).trimmed();
        if (error->isEmpty())
            *error = QString("sh exit code %1").arg(sh.exitCode());
        return {};
    }
    const QByteArray out = sh.readAllStandardOutput();
    QStringList words{"llama-server"};
    for (const QByteArray &w : out.split('\0'))
        words << QString::fromUtf8(w);
    words.removeLast(); // after the last NUL
    return words;
}

// The flags the command may use; a value follows each except the last two.
const QStringList kValueFlags{"-m",  "-ngl", "--n-cpu-moe", "-c",  "-ctk",    "-ctv",    "-fa",
                              "-t",  "-b",   "-ub",         "--temp", "--top-k", "--top-p", "--min-p",
                              "--presence-penalty", "--spec-type", "-md"};
const QStringList kSwitches{"--no-mmap", "--mlock"};

} // namespace

class TestServerCommand : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void defaults();
    void flags_data();
    void flags();
    void modelPath_data();
    void modelPath();
};

void TestServerCommand::initTestCase()
{
    if (!QFileInfo("/bin/sh").isExecutable())
        QSKIP("needs /bin/sh to read the command back");
    QVERIFY(fakeServerDir()->isValid());
    QFile server(fakeServerDir()->filePath("llama-server"));
    QVERIFY(server.open(QIODevice::WriteOnly));
    server.write("#!/bin/sh\nprintf '%s\\0' \"$@\"\n");
    server.close();
    QVERIFY(server.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
}

void TestServerCommand::defaults()
{
    // The whole line for default settings: every flag Shoehorn always writes, in order.
    const QString command = llamaServerCommand("/models/a.gguf", ModelSettings{});
    QCOMPARE(command, QString("llama-server -m /models/a.gguf -ngl 99 -c 4096 -ctk f16 -ctv f16 -fa auto "
                              "-b 2048 -ub 512 --temp 0.8 --top-k 40 --top-p 0.95 --min-p 0.05"));
    QString error;
    QCOMPARE(shellWords(command, &error), command.split(' '));
}

void TestServerCommand::flags_data()
{
    QTest::addColumn<ModelSettings>("settings");
    QTest::addColumn<QStringList>("present"); // "-flag value" or "--switch"
    QTest::addColumn<QStringList>("absent");  // flags that must not be there
    auto row = [](const char *name, auto change, const QStringList &present, const QStringList &absent = {}) {
        ModelSettings s;
        change(s);
        QTest::newRow(name) << s << present << absent;
    };
    row("all layers on the GPU", [](ModelSettings &s) { s.load.gpuLayers = -1; }, {"-ngl 99"});
    row("CPU only", [](ModelSettings &s) { s.load.gpuLayers = 0; }, {"-ngl 0"});
    row("some layers", [](ModelSettings &s) { s.load.gpuLayers = 33; }, {"-ngl 33"});
    row("no speculation", [](ModelSettings &) {}, {}, {"--spec-type", "-md"});
    row("MTP", [](ModelSettings &s) { s.context.speculation.types = "draft-mtp"; }, {"--spec-type draft-mtp"}, {"-md"});
    row("draft model", [](ModelSettings &s) {
        s.context.speculation.types = "draft-simple";
        s.context.speculation.draftModel = "/m/Qwen3-0.6B.gguf";
    }, {"--spec-type draft-simple", "-md /m/Qwen3-0.6B.gguf"});
    // llama-server would load a draft given alone and not speculate: the command names the type.
    row("draft model without a type", [](ModelSettings &s) { s.context.speculation.draftModel = "/m/d.gguf"; },
        {"--spec-type draft-simple", "-md /m/d.gguf"});
    row("no CPU experts", [](ModelSettings &s) { s.load.cpuMoeLayers = 0; }, {}, {"--n-cpu-moe"});
    row("CPU experts", [](ModelSettings &s) { s.load.cpuMoeLayers = 20; }, {"--n-cpu-moe 20"});
    row("context", [](ModelSettings &s) { s.context.contextSize = 102400; }, {"-c 102400"});
    row("trained context", [](ModelSettings &s) { s.context.contextSize = 0; }, {"-c 0"});
    row("K cache type", [](ModelSettings &s) { s.context.typeK = "q8_0"; }, {"-ctk q8_0", "-ctv f16"});
    row("V cache type", [](ModelSettings &s) { s.context.typeV = "q4_0"; }, {"-ctk f16", "-ctv q4_0"});
    row("flash attention on", [](ModelSettings &s) { s.context.flashAttention = FlashAttention::On; }, {"-fa on"});
    row("flash attention off", [](ModelSettings &s) { s.context.flashAttention = FlashAttention::Off; },
        {"-fa off"});
    row("threads automatic", [](ModelSettings &s) { s.context.threads = 0; }, {}, {"-t"});
    row("threads", [](ModelSettings &s) { s.context.threads = 6; }, {"-t 6"});
    row("batch", [](ModelSettings &s) { s.context.batchSize = 512; }, {"-b 512"});
    row("ubatch", [](ModelSettings &s) { s.context.ubatchSize = 128; }, {"-ub 128"});
    row("mmap", [](ModelSettings &s) { s.load.loadMode = LoadMode::Mmap; }, {}, {"--no-mmap", "--mlock"});
    row("no mmap", [](ModelSettings &s) { s.load.loadMode = LoadMode::NoMmap; }, {"--no-mmap"}, {"--mlock"});
    row("mlock", [](ModelSettings &s) { s.load.loadMode = LoadMode::Mlock; }, {"--mlock"}, {"--no-mmap"});
    row("temperature", [](ModelSettings &s) { s.generation.sampling.temperature = 0.6f; }, {"--temp 0.6"});
    row("temperature 0", [](ModelSettings &s) { s.generation.sampling.temperature = 0.0f; }, {"--temp 0"});
    row("top-k", [](ModelSettings &s) { s.generation.sampling.topK = 20; }, {"--top-k 20"});
    row("top-p", [](ModelSettings &s) { s.generation.sampling.topP = 0.8f; }, {"--top-p 0.8"});
    row("min-p", [](ModelSettings &s) { s.generation.sampling.minP = 0.0f; }, {"--min-p 0"});
    row("no presence penalty", [](ModelSettings &s) { s.generation.sampling.presencePenalty = 0.0f; }, {},
        {"--presence-penalty"});
    row("presence penalty", [](ModelSettings &s) { s.generation.sampling.presencePenalty = 1.5f; },
        {"--presence-penalty 1.5"});
    row("the guide's Qwen3.5 setup",
        [](ModelSettings &s) {
            s.load.cpuMoeLayers = 30;
            s.context.contextSize = 102400;
            s.context.flashAttention = FlashAttention::On;
            s.context.batchSize = 512;
            s.generation.sampling = {1.0f, 20, 0.95f, 0.0f, 1.0f, 64, 1.5f, 0.0f, 0xFFFFFFFF};
        },
        {"-ngl 99", "--n-cpu-moe 30", "-c 102400", "-fa on", "-b 512", "--temp 1", "--top-k 20", "--top-p 0.95",
         "--min-p 0", "--presence-penalty 1.5"});
}

void TestServerCommand::flags()
{
    QFETCH(ModelSettings, settings);
    QFETCH(QStringList, present);
    QFETCH(QStringList, absent);
    const QString command = llamaServerCommand("/m/model.gguf", settings);
    QString error;
    const QStringList argv = shellWords(command, &error);
    QVERIFY2(!argv.isEmpty(), qPrintable(error));
    QCOMPARE(argv.value(0), QString("llama-server"));
    // Every argument is a flag llama-server knows followed by its value, each flag once.
    QStringList seen;
    for (int i = 1; i < argv.size(); ++i) {
        const QString &a = argv.at(i);
        QVERIFY2(kValueFlags.contains(a) || kSwitches.contains(a), qPrintable("unexpected argument " + a));
        QVERIFY2(!seen.contains(a), qPrintable(a + " twice"));
        seen << a;
        if (kValueFlags.contains(a)) {
            ++i;
            QVERIFY2(i < argv.size() && !argv.at(i).isEmpty(), qPrintable(a + " without a value"));
        }
    }
    for (const QString &p : present) {
        const QStringList want = p.split(' ');
        const int at = int(argv.indexOf(want.first()));
        QVERIFY2(at > 0, qPrintable(want.first() + " missing in " + command));
        QCOMPARE(argv.mid(at, want.size()), want);
    }
    for (const QString &a : absent)
        QVERIFY2(!argv.contains(a), qPrintable(a + " in " + command));
}

void TestServerCommand::modelPath_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("plain") << "/models/qwen3-30b-a3b.Q4_K_M.gguf";
    QTest::newRow("spaces") << "/home/me/My Models/Qwen3 30B.gguf";
    QTest::newRow("CJK and spaces") << "/home/阿才/模型 文件/千问.gguf";
    QTest::newRow("leading dash") << "-weird.gguf";
    QTest::newRow("parentheses and space") << "/m/model (copy).gguf";
    // Shell-special characters: the copied line must still pass the path as one word.
    QTest::newRow("double quote") << "/m/the \"best\" model.gguf";
    QTest::newRow("double quote, no space") << "/m/a\"b.gguf";
    QTest::newRow("single quote and space") << "/m/Qwen's model.gguf";
    QTest::newRow("single quote, no space") << "/m/Qwen's.gguf";
    QTest::newRow("dollar") << "/m/$HOME model.gguf";
    QTest::newRow("backtick") << "/m/`id` model.gguf";
    QTest::newRow("backslash") << "/m/a\\b.gguf";
    QTest::newRow("semicolon") << "/m/a;b.gguf";
    QTest::newRow("ampersand") << "/m/a&b.gguf";
    QTest::newRow("parentheses") << "/m/model(1).gguf";
}

void TestServerCommand::modelPath()
{
    QFETCH(QString, path);
    const QString command = llamaServerCommand(path, ModelSettings{});
    QString error;
    QStringList argv = shellWords(command, &error);
    if (argv.isEmpty())
        argv << "sh: " + error << command;
    QStringList expected = llamaServerCommand("/m/a.gguf", ModelSettings{}).split(' ');
    expected[2] = path;
    QCOMPARE(argv, expected);
}

QTEST_GUILESS_MAIN(TestServerCommand)
#include "tst_servercommand.moc"
