// StopWaker: the chat's Stop wakes a reader of llama.cpp's server queue at once, and a wake no
// reader took does not stay in the queue (it would be scanned by every later read).
#include "stopwaker.h"

#include <QtTest>

#include <atomic>

using shoehorn::internal::StopWaker;

class TestStopWaker : public QObject
{
    Q_OBJECT
private slots:
    void wakesTheReader();
    void anUntakenWakeLeavesTheQueue();
    void noStopNoWake();
};

void TestStopWaker::wakesTheReader()
{
    server_response results;
    results.add_waiting_task_id(7);
    std::atomic<bool> stop{false};
    StopWaker waker(results, 7, [&stop] { return stop.load(); });
    QElapsedTimer t;
    t.start();
    stop = true;
    // llama.cpp's reader waits a second for a result; the waker's comes long before.
    server_task_result_ptr r = results.recv_with_timeout({7}, 1);
    QVERIFY(r);
    QVERIFY(r->is_error());
    QCOMPARE(r->id, 7);
    QVERIFY2(t.elapsed() < 500, qPrintable(QString::number(t.elapsed())));
    QVERIFY(waker.woke());
}

void TestStopWaker::anUntakenWakeLeavesTheQueue()
{
    server_response results;
    results.add_waiting_task_id(7);
    {
        std::atomic<bool> stop{true};
        StopWaker waker(results, 7, [&stop] { return stop.load(); });
        QTRY_VERIFY(waker.woke());
    } // Stop came just after the answer ended: nobody reads the wake
    results.add_waiting_task_id(7);
    QVERIFY(!results.recv_with_timeout({7}, 0)); // nothing left for the task
}

void TestStopWaker::noStopNoWake()
{
    server_response results;
    results.add_waiting_task_id(7);
    {
        StopWaker waker(results, 7, [] { return false; });
        QTest::qWait(50);
        QVERIFY(!waker.woke());
    }
    QVERIFY(!results.recv_with_timeout({7}, 0));
    StopWaker none(results, 7, {}); // no flag to watch: no thread
    QVERIFY(!none.woke());
}

QTEST_GUILESS_MAIN(TestStopWaker)
#include "tst_stopwaker.moc"
