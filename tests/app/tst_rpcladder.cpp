// A remote machine with too little memory for the placement (its rpc-worker under an address-space
// limit): the load fails on RPC0, the out-of-memory ladder names the device and its buffer and
// moves the experts of a layer to the CPU, and the model loads and answers. The remote machine is
// remembered, so AppCore attaches it at start, as in the app.
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "hardwaremonitor.h"
#include "loadwatch.h"
#include "modelsettings.h"
#include "offloadcontroller.h"
#include "planner.h"
#include "remotemachines.h"
#include "oomladder.h"
#include "sanitized.h"
#include "smallchat.h"
#include "testsettings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
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
    void autoFitWithTheMachinesLimitLoadsFirstTime();
    void planAgainstActualOnTheDevice_data();
    void planAgainstActualOnTheDevice();

private:
    QTemporaryDir m_dir;
    QProcess m_worker;
    QString m_model;
    QString m_endpoint;
};

void TestRpcLadder::initTestCase()
{
    if (kSanitizedBuild)
        QSKIP("a sanitized build cannot start under the worker's address-space limit (ASan maps its shadow memory first)");
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
    // every layer, and can take it with one layer's experts in RAM (447 MiB). The worker lends this
    // machine's CPU: it gets the CPU and RPC modules alone (a Vulkan driver, loaded with the Vulkan
    // module, maps 300 MB more address space: lavapipe's LLVM and its threads).
    const QString modules = m_dir.filePath("cpu-modules");
    QVERIFY(QDir().mkpath(modules));
    for (const QString &f : QDir(bin).entryList({"libggml-cpu-*.so", "libggml-rpc.so"}, QDir::Files))
        QVERIFY(QFile::link(bin + "/" + f, modules + "/" + f));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SHOEHORN_BACKEND_DIR", modules);
    m_worker.setProcessEnvironment(env);
    m_worker.start("/bin/sh", {"-c", "ulimit -v 800000 && exec \"$0\" rpc-worker --port \"$1\"", bin + "/shoehorn-cli", port});
    QVERIFY(m_worker.waitForStarted());
    QByteArray said;
    QTRY_VERIFY_WITH_TIMEOUT((said += m_worker.readAllStandardOutput()).contains("serving on") ||
                                 m_worker.state() != QProcess::Running, 10000);
    QVERIFY2(m_worker.state() == QProcess::Running, m_worker.readAllStandardError().constData());
    QSettings().setValue("remote/machines", QStringList{"127.0.0.1:" + port});
    m_endpoint = "127.0.0.1:" + port;
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
    LoadedModel &lm = *cApp.model();
    configureSmallChat(lm, 8, 3);
    auto ls = lm.loadSettings();
    ls.gpuLayers = -1; // every layer on the device
    ls.cpuMoeLayers = 0;
    lm.setLoadSettings(ls);
    auto cs = lm.contextSettings();
    cs.contextSize = 4096;
    lm.setContextSettings(cs);
    LoadWatch load(lm);
    lm.openModel(m_model);
    const QByteArray why = load.wait();
    QVERIFY2(why.isEmpty(), why.constData());
    QVERIFY(load.retrying.count() >= 1);
    const auto first = load.firstRetry();
    QVERIFY2(QString::fromStdString(first.failure.buffer).startsWith("RPC0[127.0.0.1:"), first.failure.buffer.c_str());
    QVERIFY(first.failure.bytes > 700ull << 20);
    QCOMPARE(first.step, shoehorn::LadderStep::MoreExpertsOnCpu);
    const auto summary = load.summary();
    QVERIFY(summary.load.cpuMoeLayers > 0);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    qInfo("loaded after %d retry(ies): %s of %llu bytes refused on the remote device, then --n-cpu-moe %d",
          int(load.retrying.count()), first.failure.buffer.c_str(), static_cast<unsigned long long>(first.failure.bytes),
          summary.load.cpuMoeLayers);
}

// The same worker with its limit given in the Remote Machines list (600 MiB: what it can take
// under its address-space limit). The worker itself reports its machine's free RAM; with the
// limit, auto-fit plans within it (no further margin there) and the load succeeds at once.
void TestRpcLadder::autoFitWithTheMachinesLimitLoadsFirstTime()
{
    QSettings().setValue("remote/limitsMiB", QVariantMap{{m_endpoint, 600}});
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configureSmallChat(lm, 8, 3);
    OffloadController offload(&lm, cApp.hardware(), cApp.api(), cApp.vision());
    const auto remoteSeen = [&] {
        for (const auto &g : cApp.hardware()->current().gpus)
            if (g.remote && g.description == m_endpoint.toStdString())
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(remoteSeen(), 30000);
    offload.setModelPath(m_model);
    QTRY_VERIFY_WITH_TIMEOUT(offload.info().has_value(), 30000);
    offload.autoFit();
    QTRY_VERIFY(!offload.fitting()); // on the work pool
    QVERIFY(offload.lastFit() && offload.lastFit()->ok());
    const shoehorn::DevicePlan &rpc = offload.lastFit()->plan.gpus.front();
    QVERIFY(rpc.remote);
    QCOMPARE(rpc.available, 600ull << 20);
    QVERIFY(rpc.use.total() <= rpc.available);
    QVERIFY(rpc.layers > 0); // the device is used, within its limit
    LoadWatch load(lm);
    offload.loadOrReload();
    const QByteArray why = load.wait();
    QVERIFY2(why.isEmpty(), why.constData());
    QVERIFY2(load.retrying.isEmpty(), load.retried().constData());
    const auto summary = load.summary();
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(!summary.measured.gpus.empty());
    const double actual = double(summary.measured.gpus.front().use.total());
    qInfo("auto-fit within 600 MiB on %s: -ngl %d --n-cpu-moe %d -c %u -ctk %s, planned %.1f MiB there, llama.cpp "
          "allocated %.1f MiB (plan %+.1f %%); loaded at once",
          rpc.name.c_str(), summary.load.gpuLayers, summary.load.cpuMoeLayers, summary.context.contextSize,
          summary.context.typeK.c_str(), double(rpc.use.total()) / (1 << 20), actual / (1 << 20),
          100.0 * (double(rpc.use.total()) - actual) / actual);
}

// The plan of the remote device against what llama.cpp allocated there, with the experts of the
// first layer in RAM (-ngl all --n-cpu-moe 1, 4096 context, flash attention), f16 and q8_0 KV:
// the per-device accounting run against a real device.
void TestRpcLadder::planAgainstActualOnTheDevice_data()
{
    QTest::addColumn<QString>("kv");
    QTest::newRow("f16") << "f16";
    QTest::newRow("q8_0") << "q8_0";
}

void TestRpcLadder::planAgainstActualOnTheDevice()
{
    QFETCH(QString, kv);
    QSettings().remove("remote/limitsMiB");
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configureSmallChat(lm, 8, 3);
    auto ls = lm.loadSettings();
    ls.gpuLayers = -1;
    ls.cpuMoeLayers = 1;
    lm.setLoadSettings(ls);
    auto cs = lm.contextSettings();
    cs.contextSize = 4096;
    cs.flashAttention = shoehorn::FlashAttention::On;
    cs.typeK = cs.typeV = kv.toStdString();
    lm.setContextSettings(cs);
    // Opening a model takes what was remembered for that file (the loads above): remember these.
    ModelSettings remembered = lm.modelSettings();
    remembered.load = ls;
    remembered.context = cs;
    ModelSettingsStore::save(m_model, remembered);
    LoadWatch load(lm);
    lm.openModel(m_model);
    const QByteArray why = load.wait();
    QVERIFY2(why.isEmpty(), why.constData());
    QVERIFY2(load.retrying.isEmpty(), load.retried().constData());
    const auto summary = load.summary();
    QCOMPARE(summary.context.typeK, kv.toStdString());
    QCOMPARE(summary.load.cpuMoeLayers, 1);
    QVERIFY(!summary.measured.gpus.empty() && summary.measured.gpus.front().remote);
    auto info = shoehorn::inspectModel(m_model.toStdString());
    QVERIFY(info.ok());
    shoehorn::PlanSettings s;
    s.load = summary.load;
    s.context = summary.context;
    s.serverLoop = true; // the chat's loop, as the window plans it
    const shoehorn::MemoryPlan plan = shoehorn::analyticPlan(*info, s, cApp.hardware()->target());
    const double planned = double(plan.gpus.front().use.total());
    const double actual = double(summary.measured.gpus.front().use.total());
    const double error = (planned - actual) / actual;
    qInfo("%s KV, -ngl all --n-cpu-moe 1 on %s: planned %.1f MiB (compute %.1f), llama.cpp allocated %.1f MiB "
          "(compute %.1f): %+.2f %%",
          qPrintable(kv), plan.gpus.front().name.c_str(), planned / (1 << 20),
          double(plan.gpus.front().use.compute) / (1 << 20), actual / (1 << 20),
          double(summary.measured.gpus.front().use.compute) / (1 << 20), 100 * error);
    QCOMPARE(plan.gpus.front().use.weights(), summary.measured.gpus.front().use.weights());
    QVERIFY2(std::fabs(error) <= 0.03, "the remote device's plan is off by more than 3 %");
}

QTEST_GUILESS_MAIN(TestRpcLadder)
#include "tst_rpcladder.moc"
