#include "singleinstance.h"

#include <QElapsedTimer>
#include <QLocalServer>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

class TestSingleInstance : public QObject
{
    Q_OBJECT
private:
    static QString uniqueName() { return "shoehorn-test-" + QUuid::createUuid().toString(QUuid::WithoutBraces); }

private slots:
    void firstInstanceFindsNobody();
    void secondHandsOverFiles_data();
    void secondHandsOverFiles();
    void nameIsFreeAfterTheFirstEnds();
    void hungInstanceIsNotTrusted();
};

void TestSingleInstance::hungInstanceIsNotTrusted()
{
    // An instance whose event loop is stuck: the kernel accepts the connection, nobody answers.
    const QString name = uniqueName();
    QLocalServer hung;
    QVERIFY(hung.listen(name));
    SingleInstance second(name);
    QElapsedTimer t;
    t.start();
    QVERIFY(!second.forwardToRunning({"/m/a.gguf"}, 500));
    QVERIFY(t.elapsed() < 3000);
    // This launch then takes the name over and becomes the instance others hand their files to.
    QVERIFY(second.listen());
}

void TestSingleInstance::firstInstanceFindsNobody()
{
    SingleInstance a(uniqueName());
    QVERIFY(!a.forwardToRunning({"/x.gguf"}, 200));
    QVERIFY(a.listen());
}

void TestSingleInstance::secondHandsOverFiles_data()
{
    QTest::addColumn<QStringList>("paths");
    QTest::newRow("none: just raise") << QStringList{};
    QTest::newRow("one") << QStringList{"/models/a.gguf"};
    QTest::newRow("several, unicode, spaces") << QStringList{"/m/模型 one.gguf", "/m/b.gguf", "/m/c.gguf"};
}

void TestSingleInstance::secondHandsOverFiles()
{
    QFETCH(QStringList, paths);
    const QString name = uniqueName();
    SingleInstance first(name);
    QVERIFY(first.listen());
    QSignalSpy received(&first, &SingleInstance::filesReceived);
    // The second runs its blocking hand-over on another thread, as a second process would.
    bool forwarded = false;
    QThread *t = QThread::create([&] {
        SingleInstance second(name);
        forwarded = second.forwardToRunning(paths, 3000);
    });
    t->start();
    QTRY_COMPARE_WITH_TIMEOUT(received.count(), 1, 5000);
    QVERIFY(t->wait(5000));
    delete t;
    QVERIFY(forwarded);
    QCOMPARE(received.first().first().toStringList(), paths);
}

void TestSingleInstance::nameIsFreeAfterTheFirstEnds()
{
    const QString name = uniqueName();
    {
        SingleInstance first(name);
        QVERIFY(first.listen());
    }
    SingleInstance next(name);
    QVERIFY(!next.forwardToRunning({}, 200));
    QVERIFY(next.listen());
}

QTEST_GUILESS_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
