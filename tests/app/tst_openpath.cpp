// Every kind of malformed GGUF through the app's open path (ChatController on the real worker):
// the load fails with the inspector's code and the message that names the field, no crash, no
// hang, nothing loaded; the same controller then opens a good file.
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "malformedfiles.h"
#include "testfixtures.h"
#include "testsettings.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestOpenPath : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void malformedFileIsRefused_data();
    void malformedFileIsRefused();
};

void TestOpenPath::malformedFileIsRefused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("detail");
    for (const MalformedFile &f : malformedFiles() + dryRunFiles()) // dry run: the first-open check's helper
        QTest::newRow(qPrintable(f.kind)) << f.bytes << f.code << f.detail;
}

void TestOpenPath::malformedFileIsRefused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QFETCH(QString, detail);
    QTemporaryDir dir;
    const QString path = dir.filePath("downloaded.gguf");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
    f.close();
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    lm.openModel(path);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    const auto error = failed.at(0).at(0).value<shoehorn::Error>();
    QCOMPARE(int(error.code), code);
    QVERIFY2(QString::fromStdString(error.detail).contains(detail), error.detail.c_str());
    QVERIFY(!lm.hasModel());
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

QTEST_GUILESS_MAIN(TestOpenPath)
#include "tst_openpath.moc"
