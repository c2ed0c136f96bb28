// A broken or hostile GGUF is refused by the inspector, before llama.cpp sees it, with the
// right error code and a detail that names the field. Each row is made from a valid fixture.
#include "modelinfo.h"
#include "guarded.h"
#include "malformedfiles.h"
#include "testfixtures.h"

#include <gguf.h>

#include <QElapsedTimer>
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

QString writeFile(const QString &name, const QByteArray &bytes)
{
    const QString path = TestFixtures::instance().dir() + "/" + name;
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
    return path;
}

} // namespace

class TestModelChecks : public QObject
{
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
    void missingSplitPartNamed();
    void exceptionsBecomeErrors();
    void symlinkLoop();
    void notARegularFile();
    void noPermission();
};

void TestModelChecks::refused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("detail"); // what the detail must contain
    for (const MalformedFile &f : malformedFiles())
        QTest::newRow(qPrintable(f.kind)) << f.bytes << f.code << f.detail;
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

// What the public engine functions wrap their bodies in (guarded.h): no exception leaves them.
void TestModelChecks::exceptionsBecomeErrors()
{
    auto thrown = [](auto thrower) {
        return internal::guarded(ErrorCode::LoadFailed, [&]() -> Result<int> {
            thrower();
            return 1;
        });
    };
    auto a = thrown([] { throw std::out_of_range("unordered_map::at"); });
    QCOMPARE(a.error().code, ErrorCode::LoadFailed);
    QCOMPARE(QString::fromStdString(a.error().detail), QString("unexpected failure: unordered_map::at"));
    auto b = thrown([] { throw std::bad_alloc(); });
    QCOMPARE(b.error().code, ErrorCode::OutOfMemory);
    auto c = thrown([] { throw 42; });
    QCOMPARE(c.error().code, ErrorCode::LoadFailed);
    auto d = thrown([] {});
    QCOMPARE(*d, 1);
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

// A named pipe called *.gguf (or a device) is refused before anything opens it for reading, which
// would wait for a writer forever: by the inspector, shoehorn-cli info and chat.
void TestModelChecks::notARegularFile()
{
    const QString pipe = TestFixtures::instance().dir() + "/pipe.gguf";
    QFile::remove(pipe);
    QVERIFY(::mkfifo(qPrintable(pipe), 0600) == 0);
    QElapsedTimer t;
    t.start();
    for (const QString &path : {pipe, QStringLiteral("/dev/zero"), TestFixtures::instance().dir()}) {
        auto r = inspectModel(path.toStdString());
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::FileUnreadable);
        QVERIFY2(QString::fromStdString(r.error().detail).contains("is not a regular file"), r.error().detail.c_str());
    }
    QVERIFY(QString::fromStdString(inspectModel(pipe.toStdString()).error().detail).contains("a named pipe"));
    QVERIFY(t.elapsed() < 1000);
    for (const QStringList &args : {QStringList{"info", pipe}, QStringList{"chat", pipe, "-p", "hi"}}) {
        QProcess p;
        p.start(QStringLiteral(SHOEHORN_CLI), args);
        QVERIFY2(p.waitForFinished(10000), qPrintable(args.first() + " waits on the pipe"));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("is not a regular file (a named pipe)"));
    }
    QFile::remove(pipe);
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
