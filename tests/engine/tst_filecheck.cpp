// The isolated first-open check against hostile chat templates: a template that spins, one that
// calls itself without end, one that nests too deeply and one that grows memory each end in the
// helper process with a message naming the cause, and this process goes on. A good file passes
// and is not checked again until it changes.
#include "filecheck.h"
#include "fixtures.h"
#include "malformedfiles.h"
#include "modelinfo.h"
#include "sanitized.h"
#include "testfixtures.h"

#include <QProcess>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

using namespace shoehorn;

namespace {
// A billion turns of small loops: time, not memory (a range of a billion is a list of a billion).
const std::string kSpin = "{% for a in range(1000) %}{% for b in range(1000) %}{% for c in range(1000) %}"
                          "{% endfor %}{% endfor %}{% endfor %}";
} // namespace

class TestFileCheck : public QObject
{
    Q_OBJECT
private:
    static QString write(const QString &name, const std::string &chatTemplate)
    {
        return TestFixtures::instance().withTemplate(name, chatTemplate);
    }
    static FileCheckLimits quick()
    {
        FileCheckLimits l;
        l.seconds = 3;
        // Small, so that a template filling memory reaches it well within the time limit even
        // on a busy 2-core machine (a good check needs far less: the 248k-token Qwen3.5 shape
        // passes with 128 MiB).
        l.memoryBytes = 128ull << 20;
        return l;
    }
    QTemporaryDir m_dir;

private slots:
    void hostileTemplates_data();
    void hostileTemplates();
    void goodFileIsCheckedOnceUntilItChanges();
    void cancelKillsTheHelper();
    void brokenProjector();
    void dryRunRefuses_data();
    void dryRunRefuses();
    void draftModelIsChecked_data();
    void draftModelIsChecked();
    void helperAbortsWithoutADebugger();
};

void TestFileCheck::hostileTemplates_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("says"); // empty: the file passes
    QTest::newRow("good") << write("good.gguf", {}) << "";
    QTest::newRow("spins") << write("spins.gguf", kSpin)
                           << "rendering the chat template did not finish in 3 s";
    QTest::newRow("calls itself") << write("recursive.gguf", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")
                                  << "rendering the chat template";
    QTest::newRow("nests too deeply") << write("nested.gguf", "{{ " + std::string(20000, '(') + "1" +
                                                                  std::string(20000, ')') + " }}")
                                      << "rendering the chat template";
    QTest::newRow("grows memory") << write("grows.gguf", "{% set s = namespace(v='x') %}{% for i in range(64) %}"
                                                         "{% set s.v = s.v + s.v %}{% endfor %}{{ s.v }}")
                                  << "rendering the chat template";
    QTest::newRow("fills memory") << write("huge.gguf", "{{ range(2000000000) | list | length }}")
                                     << "rendering the chat template needed more than 128.0 MiB of memory";
}

void TestFileCheck::hostileTemplates()
{
    QFETCH(QString, file);
    QFETCH(QString, says);
    if (says.contains("needed more than"))
        SKIP_IF_HEAP_LIMIT_IS_OFF();
    QElapsedTimer t;
    t.start();
    auto v = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), {});
    const qint64 ms = t.elapsed();
    if (says.isEmpty()) {
        QVERIFY2(v.ok(), v.ok() ? "" : v.error().detail.c_str());
        QVERIFY(!v->fromCache);
        return;
    }
    QVERIFY2(!v.ok(), "a hostile template passed the check");
    QVERIFY2(QString::fromStdString(v.error().detail).contains(says), v.error().detail.c_str());
    QVERIFY2(QString::fromStdString(v.error().detail).contains(QFileInfo(file).fileName()), v.error().detail.c_str());
    QVERIFY2(ms < 3000 + 1500, qPrintable(QString::number(ms))); // the limit, and killing the helper
    qInfo("%s: %s (%lld ms)", qPrintable(QFileInfo(file).fileName()), v.error().detail.c_str(), ms);
}

void TestFileCheck::goodFileIsCheckedOnceUntilItChanges()
{
    const QString file = write("cached.gguf", {});
    const std::string cache = m_dir.filePath("checked").toStdString();
    auto first = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), cache);
    QVERIFY(first.ok());
    QVERIFY(!first->fromCache);
    auto second = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), cache);
    QVERIFY(second.ok());
    QVERIFY(second->fromCache);
    // The same name with another template (a new download): checked again, and refused.
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a new modification time
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    QCOMPARE(write("cached.gguf", kSpin), file);
    auto third = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), cache);
    QVERIFY(!third.ok());
}

void TestFileCheck::cancelKillsTheHelper()
{
    const QString file = write("cancel.gguf", kSpin);
    std::atomic<bool> cancel{false};
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    QElapsedTimer t;
    t.start();
    auto v = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), {}, &cancel);
    stopper.join();
    QVERIFY(!v.ok());
    QCOMPARE(v.error().code, ErrorCode::Cancelled);
    QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
}

// A projector with a BF16 patch convolution: llama.cpp's dry run of it aborts (no backend runs
// that op). In the helper that is a message; in-process it would end Shoehorn.
void TestFileCheck::brokenProjector()
{
    auto p = fixtures::tinyProjector();
    p.type = "bf16";
    p.bf16Convolution = true;
    const QString bad = m_dir.filePath("mmproj-broken-BF16.gguf");
    QVERIFY(fixtures::writeProjector(p, bad.toStdString()).empty());
    const FileCheckLimits limits; // the default heap: the dry run's graph for a warm-up image needs more than quick()'s
    auto v = checkFileIsolated(bad.toStdString(), SHOEHORN_CLI, limits, {});
    QVERIFY(!v.ok());
    QCOMPARE(v.error().code, ErrorCode::FileCheckFailed);
    QVERIFY2(v.error().detail.find("while preparing the vision projector") != std::string::npos, v.error().detail.c_str());
    p.bf16Convolution = false;
    const QString good = m_dir.filePath("mmproj-good-BF16.gguf");
    QVERIFY(fixtures::writeProjector(p, good.toStdString()).empty());
    auto ok = checkFileIsolated(good.toStdString(), SHOEHORN_CLI, limits, {});
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().detail.c_str());
}

void TestFileCheck::dryRunRefuses_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("detail");
    for (const MalformedFile &f : dryRunFiles())
        QTest::newRow(qPrintable(f.kind)) << f.bytes << f.code << f.detail;
}

// Files whose metadata the inspector accepts and on which llama.cpp asserts while it places the
// tensors or builds the compute graph: the check's dry run ends in the helper, with llama.cpp's
// words, and so do `shoehorn-cli chat` and `bench` (which would load it in their own process).
void TestFileCheck::dryRunRefuses()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QFETCH(QString, detail);
    const QString file = m_dir.filePath("dry-run.gguf");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
    f.close();
    auto info = inspectModel(file.toStdString());
    QVERIFY2(info.ok(), info.ok() ? "" : info.error().detail.c_str()); // only the dry run finds it
    auto v = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), {});
    QVERIFY2(!v.ok(), "the file passed the check");
    QCOMPARE(errorCodeName(v.error().code), errorCodeName(ErrorCode(code)));
    QVERIFY2(QString::fromStdString(v.error().detail).contains(detail), v.error().detail.c_str());
    for (const QStringList &args : {QStringList{"chat", file, "-p", "hi", "-n", "4"}, QStringList{"bench", file, "-p", "8", "-n", "4", "-r", "1"}}) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CACHE_HOME", m_dir.filePath("cache")); // no verdict of an earlier run
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SHOEHORN_CLI), args);
        QVERIFY(p.waitForFinished(30000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 1 && err.contains(detail), qPrintable(args.first() + ": " + err.right(600)));
    }
}

// A draft model (-md) is loaded by llama.cpp in the same process as the model: the CLI checks it
// the same way. chat and serve go on without speculation and say why (as for a draft that is no
// GGUF); plan --exact, which measures that configuration, fails. (Unchecked, llama.cpp's
// assertion ended the whole process.)
void TestFileCheck::draftModelIsChecked_data()
{
    QTest::addColumn<QStringList>("args"); // FILE: the draft model
    QTest::addColumn<QString>("said");     // on stderr, before FILE
    const QStringList serve{"serve", "MODEL", "-md", "FILE", "--port", "0", "-c", "512"};
    QTest::newRow("chat") << QStringList{"chat", "MODEL", "-md", "FILE", "-p", "hi", "-n", "4"} << "note: -md ";
    QTest::newRow("plan --exact") << QStringList{"plan", "MODEL", "-md", "FILE", "--exact"}
                                  << "error (file-check-failed): -md ";
    QTest::newRow("serve") << serve << "note: -md ";
}

void TestFileCheck::draftModelIsChecked()
{
    QFETCH(QStringList, args);
    QFETCH(QString, said);
    const QString assertion = "n_embd_head == n_rot";
    const QString file = m_dir.filePath("draft.gguf");
    QVERIFY(writeDryRunFile(assertion, file));
    args.replaceInStrings(QRegularExpression("^MODEL$"), TestFixtures::instance().tinyMoe());
    args.replaceInStrings(QRegularExpression("^FILE$"), file);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", m_dir.filePath("cache"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SHOEHORN_CLI), args);
    if (args.front() == "serve") { // serving without speculation: then stopped
        QString out;
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(p.readAllStandardOutput())).contains("listening on") ||
                                     p.state() == QProcess::NotRunning,
                                 60000);
        QCOMPARE(p.state(), QProcess::Running);
        p.terminate();
    }
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), said.startsWith("error") ? 1 : 0);
    QVERIFY2(err.contains(said + file + ": ") && err.contains(assertion), qPrintable(err.right(600)));
}

// ggml prints a backtrace when llama.cpp aborts, through gdb where gdb is installed (seconds:
// 20 s instead of 3.5 s for dryRunRefuses, and under load past the check's 3 s). The helper
// asks for none: a `gdb` first on PATH that leaves a mark is never started.
void TestFileCheck::helperAbortsWithoutADebugger()
{
    const QString bin = m_dir.filePath("fake-debugger");
    QVERIFY(QDir().mkpath(bin));
    const QString mark = m_dir.filePath("gdb-was-started");
    QFile gdb(bin + "/gdb");
    QVERIFY(gdb.open(QIODevice::WriteOnly));
    gdb.write(QStringLiteral("#!/bin/sh\ntouch '%1'\n").arg(mark).toUtf8());
    gdb.close();
    gdb.setPermissions(gdb.permissions() | QFileDevice::ExeOwner);
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", bin.toUtf8() + ':' + path);
    const QString file = m_dir.filePath("aborts.gguf");
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(dryRunFiles().front().bytes);
    f.close();
    auto v = checkFileIsolated(file.toStdString(), SHOEHORN_CLI, quick(), {});
    qputenv("PATH", path);
    QVERIFY2(!v.ok(), "the file passed the check");
    QVERIFY2(!QFile::exists(mark), "the helper started a debugger for its backtrace");
}

QTEST_GUILESS_MAIN(TestFileCheck)
#include "tst_filecheck.moc"
