// ModelInspector reads a GGUF header off the GUI thread: a good file gives its metadata, a broken
// one the reason, and a path asked for while another is read wins (the older result is dropped).
#include "modelinspector.h"
#include "testfixtures.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestModelInspector : public QObject
{
    Q_OBJECT
private slots:
    void goodAndBroken();
    void newestPathWins();
};

void TestModelInspector::goodAndBroken()
{
    ModelInspector m;
    QSignalSpy done(&m, &ModelInspector::inspected);
    m.inspect(TestFixtures::instance().tinyLlama());
    QVERIFY(m.busy());
    QTRY_COMPARE(done.count(), 1);
    QVERIFY(!m.busy());
    auto info = done.at(0).at(1).value<std::optional<shoehorn::ModelInfo>>();
    QVERIFY(info.has_value());
    QCOMPARE(QString::fromStdString(info->architecture), QString("llama"));
    QTemporaryDir dir;
    QFile broken(dir.filePath("broken.gguf"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("GGUF\x03\x00\x00\x00 and then nothing");
    broken.close();
    m.inspect(broken.fileName());
    QTRY_COMPARE(done.count(), 2);
    QVERIFY(!done.at(1).at(1).value<std::optional<shoehorn::ModelInfo>>().has_value());
    const auto error = done.at(1).at(2).value<shoehorn::Error>(); // typed: the window words it
    QCOMPARE(error.code, shoehorn::ErrorCode::Truncated);
    QVERIFY(!error.detail.empty());
    QCOMPARE(done.at(0).at(2).value<shoehorn::Error>().code, shoehorn::ErrorCode::None);
}

void TestModelInspector::newestPathWins()
{
    ModelInspector m;
    QSignalSpy done(&m, &ModelInspector::inspected);
    m.inspect(TestFixtures::instance().tinyLlama());
    m.inspect(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE(done.count(), 1);
    QTest::qWait(100);
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.at(0).at(0).toString(), TestFixtures::instance().tinyMoe());
    QCOMPARE(QString::fromStdString(done.at(0).at(1).value<std::optional<shoehorn::ModelInfo>>()->architecture),
             QString("qwen3moe"));
}

QTEST_GUILESS_MAIN(TestModelInspector)
#include "tst_modelinspector.moc"
