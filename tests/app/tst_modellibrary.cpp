#include "modellibrary.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

class TestModelLibrary : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void recentMovesToTopAndPersists();
    void offeredAreMarkedAndNotSaved();
    void capped();
};

void TestModelLibrary::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestModelLibrary::init()
{
    QSettings().clear();
}

void TestModelLibrary::recentMovesToTopAndPersists()
{
    QTemporaryDir dir;
    const QString a = dir.filePath("a.gguf"), b = dir.filePath("b.gguf");
    QFile(a).open(QIODevice::WriteOnly);
    {
        ModelLibrary lib;
        QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
        lib.addRecent(a);
        lib.addRecent(b);
        lib.addRecent(a);
        QCOMPARE(lib.rowCount(), 2);
        QCOMPARE(lib.pathAt(0), a);
        QCOMPARE(lib.data(lib.index(0), Qt::DisplayRole).toString(), QString("a.gguf"));
        QVERIFY(lib.data(lib.index(0), ModelLibrary::ExistsRole).toBool());
        QVERIFY(!lib.data(lib.index(1), ModelLibrary::ExistsRole).toBool()); // b was never created
    }
    ModelLibrary again;
    QCOMPARE(again.rowCount(), 2);
    QCOMPARE(again.pathAt(0), a);
    again.remove(1);
    QCOMPARE(ModelLibrary().rowCount(), 1);
}

void TestModelLibrary::offeredAreMarkedAndNotSaved()
{
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    lib.addRecent("/m/known.gguf");
    lib.offer({"/m/x.gguf", "/m/y.gguf", "/m/known.gguf"});
    QCOMPARE(lib.rowCount(), 3);
    QCOMPARE(lib.pathAt(0), QString("/m/x.gguf")); // in the order given
    QCOMPARE(lib.pathAt(1), QString("/m/y.gguf"));
    QVERIFY(lib.data(lib.index(0), ModelLibrary::OfferedRole).toBool());
    QVERIFY(!lib.data(lib.index(2), ModelLibrary::OfferedRole).toBool());
    // Opening an offered one makes it recent.
    lib.addRecent("/m/y.gguf");
    QCOMPARE(lib.pathAt(0), QString("/m/y.gguf"));
    QVERIFY(!lib.data(lib.index(0), ModelLibrary::OfferedRole).toBool());
    ModelLibrary reloaded;
    QCOMPARE(reloaded.rowCount(), 2); // y and known; x was only offered
}

void TestModelLibrary::capped()
{
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int i = 0; i < ModelLibrary::kMaxEntries + 5; ++i)
        lib.addRecent(QString("/m/%1.gguf").arg(i));
    QCOMPARE(lib.rowCount(), ModelLibrary::kMaxEntries);
    QCOMPARE(lib.pathAt(0), QString("/m/%1.gguf").arg(ModelLibrary::kMaxEntries + 4));
}

QTEST_GUILESS_MAIN(TestModelLibrary)
#include "tst_modellibrary.moc"
