// The Remote machines list without widgets: addresses checked, remembered, tested in a helper
// process against a real loopback worker (shoehorn-cli rpc-worker) and a port with nobody there;
// at start the remembered workers' devices join this process's and the hardware probe sees them.
#include "hardware.h"
#include "remotemachines.h"
#include "testsettings.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
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
    void init() { QSettings().remove(QStringLiteral("remote")); }
    void cleanupTestCase();
    void addressesAreChecked();
    void testConnectionShowsDevicesOrWhy();
    void rememberedMachinesJoinAtStart();

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
    QVERIFY(machines.add("localhost").contains("host:port"));
    QVERIFY(machines.add("a:1,b:2").contains("host:port"));
    QCOMPARE(machines.model()->rowCount(), 0);
    QVERIFY(machines.add(" 10.0.0.9:50052 ").isEmpty());
    QCOMPARE(RemoteMachines::remembered(), QStringList{"10.0.0.9:50052"});
    QVERIFY(machines.add("10.0.0.9:50052").contains("in the list already"));
    QVERIFY(machines.add("127.0.0.1:1").isEmpty());
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
    QVERIFY(machines.add(m_endpoint).isEmpty()); // adding tests it
    QVERIFY(machines.add("127.0.0.1:1").isEmpty());
    QTRY_COMPARE_WITH_TIMEOUT(tested.count(), 2, 15000);
    const auto &rows = machines.model()->rows();
    QCOMPARE(rows[0].status, Status::Answered);
    QCOMPARE(rows[0].devices.size(), size_t(1));
    QVERIFY(rows[0].devices[0].totalBytes > 0);
    QVERIFY(rows[0].roundTripMs > 0);
    const QModelIndex devices = machines.model()->index(0, RemoteMachineModel::Devices);
    QVERIFY2(devices.data().toString().contains("free of"), qPrintable(devices.data().toString()));
    QCOMPARE(rows[1].status, Status::Unreachable);
    QVERIFY2(rows[1].detail.contains("cannot connect"), qPrintable(rows[1].detail));
    QCOMPARE(machines.model()->index(1, RemoteMachineModel::State).data().toString(), QString("not reachable"));
    const QString why = machines.model()->index(1, RemoteMachineModel::Devices).data().toString();
    QVERIFY2(why.startsWith("cannot connect"), qPrintable(why));
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
    const HardwareInfo hw = probeHardware();
    bool remote = false;
    for (const auto &g : hw.gpus)
        remote |= QString::fromStdString(g.name).startsWith("RPC") && g.description == m_endpoint.toStdString();
    QVERIFY2(remote, "the hardware probe does not list the remote device");
}

QTEST_GUILESS_MAIN(TestRemoteMachines)
#include "tst_remotemachines.moc"
