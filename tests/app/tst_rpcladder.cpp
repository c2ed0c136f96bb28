// A remote machine with too little memory for the placement (its rpc-worker under an address-space
// limit): the load fails on RPC0, the out-of-memory ladder names the device and its buffer and
// moves the experts of a layer to the CPU, and the model loads and answers. The remote machine is
// remembered, so AppCore attaches it at start, as in the app.
#include "appcore.h"
#include "chatcontroller.h"
#include "oomladder.h"
#include "smallchat.h"
#include "testsettings.h"

#include <QCoreApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

class TestRpcLadder : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void ladderRecoversFromTheRemoteDevice();

private:
    QTemporaryDir m_dir;
    QProcess m_worker;
    QString m_model;
};

void TestRpcLadder::initTestCase()
{
    isolateSettings();
    const QString bin = QCoreApplication::applicationDirPath();
    // Qwen3-30B-A3B's layer shapes, 2 layers, Q4_K: 772 MiB of weights on the device.
    m_model = m_dir.filePath("bench-qwen3moe.gguf");
    QCOMPARE(QProcess::execute(bin + "/shoehorn-fixturegen", {"bench-qwen3moe", m_model}), 0);
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const QString port = QString::number(probe.serverPort());
    probe.close();
    // 800 MB of address space: the worker (about 100 MB) cannot take the 771 MiB weight buffer of
    // every layer, and can take it with one layer's experts in RAM (447 MiB).
    m_worker.start("/bin/sh", {"-c", "ulimit -v 800000 && exec \"$0\" rpc-worker --port \"$1\"", bin + "/shoehorn-cli", port});
    QVERIFY(m_worker.waitForStarted());
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += m_worker.readAllStandardOutput()).contains("serving on") ||
                                 m_worker.state() != QProcess::Running, 10000);
    QVERIFY2(m_worker.state() == QProcess::Running, m_worker.readAllStandardError().constData());
    QSettings().setValue("remote/machines", QStringList{"127.0.0.1:" + port});
}

void TestRpcLadder::cleanupTestCase()
{
    m_worker.terminate();
    m_worker.waitForFinished(5000);
}

void TestRpcLadder::ladderRecoversFromTheRemoteDevice()
{
    AppCore cApp; // attaches the remembered machine: RPC0
    ChatController &c = *cApp.chat();
    configureSmallChat(c, 8, 3);
    auto ls = c.loadSettings();
    ls.gpuLayers = -1; // every layer on the device
    ls.cpuMoeLayers = 0;
    c.setLoadSettings(ls);
    auto cs = c.contextSettings();
    cs.contextSize = 4096;
    c.setContextSettings(cs);
    QSignalSpy loaded(&c, &ChatController::modelLoaded);
    QSignalSpy failed(&c, &ChatController::loadFailed);
    QSignalSpy retrying(&c, &ChatController::loadRetrying);
    c.openModel(m_model);
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + failed.count() > 0, 120000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : failed.first().at(0).value<shoehorn::Error>().detail.c_str());
    QVERIFY(retrying.count() >= 1);
    const auto first = retrying.first().at(0).value<shoehorn::OomRetry>();
    QVERIFY2(QString::fromStdString(first.failure.buffer).startsWith("RPC0[127.0.0.1:"), first.failure.buffer.c_str());
    QVERIFY(first.failure.bytes > 700ull << 20);
    QCOMPARE(first.step, shoehorn::LadderStep::MoreExpertsOnCpu);
    const auto summary = loaded.first().at(0).value<ModelSummary>();
    QVERIFY(summary.load.cpuMoeLayers > 0);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    qInfo("loaded after %d retry(ies): %s of %llu bytes refused on the remote device, then --n-cpu-moe %d",
          int(retrying.count()), first.failure.buffer.c_str(), static_cast<unsigned long long>(first.failure.bytes),
          summary.load.cpuMoeLayers);
}

QTEST_GUILESS_MAIN(TestRpcLadder)
#include "tst_rpcladder.moc"
