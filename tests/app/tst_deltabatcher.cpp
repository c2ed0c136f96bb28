#include "deltabatcher.h"

#include <QtTest>

class TestDeltaBatcher : public QObject
{
    Q_OBJECT
private slots:
    void batchesByTime();
    void keepsContentAndReasoningApart();
};

void TestDeltaBatcher::batchesByTime()
{
    // A long interval keeps the "too soon" check safe on a loaded CI machine.
    DeltaBatcher b(500);
    QString c, r;
    QVERIFY(!b.due());
    b.take(c, r); // start the clock now
    b.add("ab", 2, "", 0);
    QVERIFY(!b.due()); // text, but too soon
    QTest::qWait(600);
    QVERIFY(b.due());
    b.add("c", 1, "", 0);
    b.take(c, r);
    QCOMPARE(c, QString("abc"));
    QVERIFY(b.isEmpty());
    QVERIFY(!b.due());
}

void TestDeltaBatcher::keepsContentAndReasoningApart()
{
    DeltaBatcher b(0);
    const QByteArray zh = QString::fromUtf8("你好").toUtf8();
    b.add(zh.constData(), size_t(zh.size()), "think", 5);
    QVERIFY(b.due());
    QString c, r;
    b.take(c, r);
    QCOMPARE(c, QString::fromUtf8("你好"));
    QCOMPARE(r, QString("think"));
}

QTEST_GUILESS_MAIN(TestDeltaBatcher)
#include "tst_deltabatcher.moc"
