// The Remote machines list without widgets: addresses checked, remembered, tested in a helper
// process against a real loopback worker (shoehorn-cli rpc-worker) and a port with nobody there;
// at start the remembered workers' devices join this process's and the hardware probe sees them.
#include "appcore.h"
#include "hardware.h"
#include "hardwaremonitor.h"
#include "remotemachines.h"
#include "appsettings.h"
#include "testsettings.h"
#include "workpool.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QtTest>

using namespace shoehorn;
using Status = RemoteMachineModel::Status;

class TestRemoteMachines : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init()
    {
        AppSettings::waitForWrites(); // the last test's machines are written first
        QSettings().remove(QStringLiteral("remote"));
    }
    void cleanupTestCase();
    void addressesAreChecked();
    void testConnectionShowsDevicesOrWhy();
    void closingDoesNotWaitForATest();
    void quittingStopsATest();
    void quittingStopsAttachingAtStart();
    void rememberedMachinesJoinAtStart();
    void addedMachineJoinsWhileRunning();
    void limitIsRememberedAndCapsThePlan_data();
    void limitIsRememberedAndCapsThePlan();

private:
    QString helper() const { return QCoreApplication::applicationDirPath() + "/shoehorn-cli"; }
    QProcess m_worker;
    QString m_endpoint;
};

void TestRemoteMachines::initTestCase()
{
    isolateSettings();
    QTcpServer probe; // a port free right now
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();
    m_endpoint = QString("127.0.0.1:%1").arg(port);
    m_worker.start(helper(), {"rpc-worker", "--port", QString::number(port)});
    QVERIFY(m_worker.waitForStarted());
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += m_worker.readAllStandardOutput()).contains("serving on") ||
                                 m_worker.state() != QProcess::Running, 10000);
    QVERIFY2(m_worker.state() == QProcess::Running, m_worker.readAllStandardError().constData());
}

void TestRemoteMachines::cleanupTestCase()
{
    m_worker.terminate();
    QVERIFY(m_worker.waitForFinished(5000));
    QCOMPARE(m_worker.exitCode(), 0); // SIGTERM: a clean stop
}

void TestRemoteMachines::addressesAreChecked()
{
    RemoteMachines machines;
    QAbstractItemModelTester tester(machines.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(machines.add("localhost"), RemoteMachines::AddResult::NotAnAddress);
    QCOMPARE(machines.add("a:1,b:2"), RemoteMachines::AddResult::NotAnAddress);
    QCOMPARE(machines.model()->rowCount(), 0);
    QCOMPARE(machines.add(" 10.0.0.9:50052 "), RemoteMachines::AddResult::Added);
    QCOMPARE(RemoteMachines::remembered(), QStringList{"10.0.0.9:50052"});
    QCOMPARE(machines.add("10.0.0.9:50052"), RemoteMachines::AddResult::AlreadyListed);
    QCOMPARE(machines.add("127.0.0.1:1"), RemoteMachines::AddResult::Added);
    QCOMPARE(RemoteMachines::remembered(), (QStringList{"10.0.0.9:50052", "127.0.0.1:1"}));
    machines.remove(0);
    QCOMPARE(RemoteMachines::remembered(), QStringList{"127.0.0.1:1"});
    QCOMPARE(machines.model()->rowCount(), 1);
}

void TestRemoteMachines::testConnectionShowsDevicesOrWhy()
{
    RemoteMachines machines;
    QAbstractItemModelTester tester(machines.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy tested(&machines, &RemoteMachines::tested);
    QSignalSpy attach(&machines, &RemoteMachines::attachRequested);
    QCOMPARE(machines.add(m_endpoint), RemoteMachines::AddResult::Added); // adding tests it
    QCOMPARE(machines.add("127.0.0.1:1"), RemoteMachines::AddResult::Added);
    QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
    const auto &rows = machines.model()->rows();
    QCOMPARE(rows[0].status, Status::Answered);
    QCOMPARE(rows[0].devices.size(), size_t(1));
    QVERIFY(rows[0].devices[0].totalBytes > 0);
    QVERIFY(rows[0].roundTripMs > 0);
    const QModelIndex devices = machines.model()->index(0, RemoteMachineModel::Devices);
    QVERIFY2(devices.data().toString().contains("free of"), qPrintable(devices.data().toString()));
    QCOMPARE(rows[1].status, Status::Unreachable);
    QCOMPARE(rows[1].error.code, shoehorn::ErrorCode::RemoteFailed);
    QVERIFY2(rows[1].error.detail.find("cannot connect") != std::string::npos, rows[1].error.detail.c_str());
    QCOMPARE(machines.model()->index(1, RemoteMachineModel::State).data().toString(), QString("not reachable"));
    const QString why = machines.model()->index(1, RemoteMachineModel::Devices).data().toString();
    QVERIFY2(why.startsWith("cannot connect") && !why.contains('`'), qPrintable(why)); // no Markdown in a cell
    // The one that answered is to join now; the other is not.
    QCOMPARE(attach.count(), 1);
    QCOMPARE(attach.first().at(0).toString(), m_endpoint);
}

// Closing the window while a test waits for a machine that accepts and never answers (up to its
// 5 s) does not wait for it: nothing of the list is touched by the test's thread.
void TestRemoteMachines::closingDoesNotWaitForATest()
{
    QTcpServer silent; // accepts (the kernel's backlog) and never says a word
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    auto *machines = new RemoteMachines;
    QSignalSpy tested(machines, &RemoteMachines::tested);
    QCOMPARE(machines->add(QStringLiteral("127.0.0.1:%1").arg(silent.serverPort())), RemoteMachines::AddResult::Added);
    QTest::qWait(300); // the test is under way
    QCOMPARE(tested.count(), 0);
    QElapsedTimer closing;
    closing.start();
    delete machines;
    QVERIFY2(closing.elapsed() < 100, qPrintable(QString::number(closing.elapsed())));
    // Its helper is stopped with it, not left to its 5 s on the work pool.
    workPool()->waitForDone();
    qInfo("the work pool was free %lld ms after the list closed", closing.elapsed());
    QVERIFY2(closing.elapsed() < 2000, qPrintable(QString::number(closing.elapsed())));
}

// Quitting waits for the work pool (AppCore::shutdown): a test waiting for a machine that never
// answers is stopped (it held quitting for its 5 s).
void TestRemoteMachines::quittingStopsATest()
{
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    AppCore app;
    QTRY_VERIFY_WITH_TIMEOUT(app.hardware()->hasProbed(), 10000);
    const QString endpoint = QStringLiteral("127.0.0.1:%1").arg(silent.serverPort());
    QCOMPARE(app.remote()->add(endpoint), RemoteMachines::AddResult::Added);
    QTest::qWait(300);
    const auto status = [&] { return app.remote()->model()->rows()[size_t(app.remote()->model()->find(endpoint))].status; };
    QCOMPARE(status(), Status::Testing); // under way
    QElapsedTimer quitting;
    quitting.start();
    QVERIFY(app.shutdown(5000));
    qInfo("shut down in %lld ms with a machine's test under way", quitting.elapsed());
    QVERIFY2(quitting.elapsed() < 2000, qPrintable(QString::number(quitting.elapsed())));
    QCoreApplication::processEvents(); // the stopped test's answer: it says nothing of the machine
    QCOMPARE(status(), Status::Testing);
}

// A remembered machine that accepts and never answers is asked on the inference thread at start
// (up to 5 s): quitting meanwhile ends it, instead of giving up on the thread after 2 s.
void TestRemoteMachines::quittingStopsAttachingAtStart()
{
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    QSettings().setValue("remote/machines", QStringList{QStringLiteral("127.0.0.1:%1").arg(silent.serverPort())});
    AppCore app;
    QTest::qWait(300); // the probe is under way
    QElapsedTimer quitting;
    quitting.start();
    QVERIFY(app.shutdown(2000));
    qInfo("shut down in %lld ms while attaching a remembered machine", quitting.elapsed());
    QVERIFY2(quitting.elapsed() < 1500, qPrintable(QString::number(quitting.elapsed())));
}

// What AppCore has the inference thread do first: the remembered machines that answer are in use, the device list (and
// so the plan and the gauges) has their devices; one that does not answer is named.
void TestRemoteMachines::rememberedMachinesJoinAtStart()
{
    QSettings().setValue("remote/machines", QStringList{m_endpoint, "127.0.0.1:1"});
    RemoteMachines machines;
    QAbstractItemModelTester tester(machines.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(machines.model()->rows()[0].status, Status::Testing); // until the inference thread says
    const AttachedRemotes attached = attachRemotes({m_endpoint.toStdString(), "127.0.0.1:1"}, helper().toStdString());
    QCOMPARE(attached.machines.size(), size_t(1));
    QCOMPARE(attached.failed.size(), size_t(1));
    machines.attached(attached);
    QCOMPARE(machines.model()->rows()[0].status, Status::InUse);
    QCOMPARE(machines.model()->rows()[1].status, Status::Unreachable);
    // Matched by its address, its words kept typed; the Devices column says why without the address.
    QCOMPARE(machines.model()->rows()[1].error.code, shoehorn::ErrorCode::RemoteFailed);
    const QString said = machines.model()->index(1, RemoteMachineModel::Devices).data().toString();
    QVERIFY2(said.startsWith("cannot connect") && !said.contains("127.0.0.1:1"), qPrintable(said));
    const HardwareInfo hw = probeHardware();
    bool remote = false;
    for (const auto &g : hw.gpus)
        remote |= g.remote && g.description == m_endpoint.toStdString();
    QVERIFY2(remote, "the hardware probe does not list the remote device");
}

// A machine added while the app runs joins as soon as it answers: its state becomes "in use" and
// the hardware monitor (so the plans and the gauges) lists its device, without a restart.
void TestRemoteMachines::addedMachineJoinsWhileRunning()
{
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();
    QProcess worker;
    worker.start(helper(), {"rpc-worker", "--port", QString::number(port)});
    QVERIFY(worker.waitForStarted());
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += worker.readAllStandardOutput()).contains("serving on") ||
                                 worker.state() != QProcess::Running, 10000);
    const QString endpoint = QString("127.0.0.1:%1").arg(port);
    AppCore app; // nothing remembered: nothing attached at start
    QTRY_VERIFY_WITH_TIMEOUT(app.hardware()->hasProbed(), 10000);
    const auto listed = [&] {
        for (const auto &g : app.hardware()->current().gpus)
            if (g.remote && g.description == endpoint.toStdString())
                return true;
        return false;
    };
    QVERIFY(!listed());
    QCOMPARE(app.remote()->add(endpoint), RemoteMachines::AddResult::Added);
    const int row = app.remote()->model()->find(endpoint);
    QTRY_COMPARE_WITH_TIMEOUT(app.remote()->model()->rows()[size_t(row)].status, Status::InUse, 20000);
    QCOMPARE(app.remote()->model()->index(row, RemoteMachineModel::State).data().toString(), QString("in use"));
    QTRY_VERIFY_WITH_TIMEOUT(listed(), 10000);
    worker.terminate();
    QVERIFY(worker.waitForFinished(5000));
}

// "Use at most" per machine: typed in the table, remembered, and the plan target of this machine
// caps that machine's devices (only remote ones, found by the address llama.cpp names them by).
void TestRemoteMachines::limitIsRememberedAndCapsThePlan_data()
{
    QTest::addColumn<QVariant>("typed");
    QTest::addColumn<bool>("taken");
    QTest::addColumn<quint64>("limitMiB");
    QTest::newRow("a number") << QVariant(700) << true << quint64(700);
    QTest::newRow("text of a number") << QVariant(" 2048 ") << true << quint64(2048);
    QTest::newRow("0: what it reports") << QVariant(0) << true << quint64(0);
    QTest::newRow("negative") << QVariant(-5) << false << quint64(0);
    QTest::newRow("not a number") << QVariant("lots") << false << quint64(0);
}

void TestRemoteMachines::limitIsRememberedAndCapsThePlan()
{
    QFETCH(QVariant, typed);
    QFETCH(bool, taken);
    QFETCH(quint64, limitMiB);
    QSettings().setValue("remote/machines", QStringList{"10.0.0.7:50052", "10.0.0.8:50052"});
    {
        RemoteMachines machines;
        QAbstractItemModelTester tester(machines.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&machines, &RemoteMachines::limitsChanged);
        const QModelIndex cell = machines.model()->index(0, RemoteMachineModel::Limit);
        QVERIFY(machines.model()->flags(cell) & Qt::ItemIsEditable);
        QCOMPARE(machines.model()->setData(cell, typed), taken);
        QCOMPARE(changed.count(), taken ? 1 : 0);
        QCOMPARE(machines.model()->rows()[0].limitMiB, limitMiB);
        // A state change (the probe's answer) keeps it.
        machines.attached(AttachedRemotes{{RemoteMachine{"10.0.0.7:50052", {}, 1.0}}, {}});
        QCOMPARE(machines.model()->rows()[0].limitMiB, limitMiB);
    }
    RemoteMachines again; // remembered
    QCOMPARE(again.model()->rows()[0].limitMiB, limitMiB);
    QCOMPARE(again.model()->rows()[1].limitMiB, quint64(0));

    PlanTarget t;
    t.gpus = {GpuInfo{"RPC0", "10.0.0.7:50052", 24 * GiB, 20 * GiB, true},
              GpuInfo{"RPC1", "10.0.0.8:50052", 24 * GiB, 20 * GiB, true},
              GpuInfo{"CUDA0", "10.0.0.7:50052", 8 * GiB, 7 * GiB, false}};
    RemoteMachines::applyLimits(t, RemoteMachines::limits());
    QCOMPARE(t.gpus[0].freeBytes, limitMiB ? limitMiB * MiB : 20 * GiB);
    QCOMPARE(t.gpus[1].freeBytes, 20 * GiB); // no limit
    QCOMPARE(t.gpus[2].freeBytes, 7 * GiB);  // a local device is not a remote machine's
}

QTEST_GUILESS_MAIN(TestRemoteMachines)
#include "tst_remotemachines.moc"
