// A Vulkan device too small for the placement: the load fails on Vulkan0, the out-of-memory
// ladder names the device and its buffer and moves the experts of a layer to the CPU, and the
// model loads there and answers. Lavapipe's memory is this machine's RAM, so the device is made
// small with ggml-vulkan's own limit on one buffer (GGML_VK_FORCE_MAX_BUFFER_SIZE, 400 MiB, set
// by CTest): the weights' buffer of every layer (562 MiB) is refused as a card with less memory
// would refuse it ("Requested buffer size exceeds device buffer size limit: ErrorOutOfDeviceMemory").
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "hardwaremonitor.h"
#include "loadwatch.h"
#include "oomladder.h"
#include "planner.h"
#include "smallchat.h"
#include "testsettings.h"

#include <QCoreApplication>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestVulkanLadder : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void ladderRecoversOnVulkan();

private:
    QTemporaryDir m_dir;
    QString m_model;
};

void TestVulkanLadder::initTestCase()
{
    isolateSettings();
    QVERIFY2(qEnvironmentVariableIntValue("GGML_VK_FORCE_MAX_BUFFER_SIZE") > 0, "run by CTest, which caps Vulkan0");
    // Qwen3-30B-A3B's shapes, 2 layers, zero weights (a sparse file, written at once): 562 MiB of
    // weights on Vulkan0 with every layer there; 108 and 157.5 MiB expert tensors.
    m_model = m_dir.filePath("qwen3moe-2-layers.gguf");
    QCOMPARE(QProcess::execute(QCoreApplication::applicationDirPath() + "/shoehorn-fixturegen",
                               {"qwen3-30b-a3b", m_model, "--layers", "2"}),
             0);
}

void TestVulkanLadder::ladderRecoversOnVulkan()
{
    AppCore cApp;
    const auto vulkanSeen = [&] {
        const auto &gpus = cApp.hardware()->current().gpus;
        return !gpus.empty() && gpus.front().name == "Vulkan0";
    };
    QTRY_VERIFY2_WITH_TIMEOUT(vulkanSeen(), "no Vulkan0 (mesa-vulkan-drivers and GGML_VK_VISIBLE_DEVICES=0)", 30000);
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configureSmallChat(lm, 4, 3);
    auto ls = lm.loadSettings();
    ls.gpuLayers = -1; // every layer on the device
    ls.cpuMoeLayers = 0;
    lm.setLoadSettings(ls);
    LoadWatch load(lm);
    lm.openModel(m_model);
    const QByteArray failure = load.wait();
    QVERIFY2(failure.isEmpty(), failure.constData());
    QVERIFY(load.retrying.count() >= 1);
    const auto first = load.firstRetry();
    QCOMPARE(QString::fromStdString(first.failure.buffer), QStringLiteral("Vulkan0"));
    QVERIFY2(first.failure.bytes > 400ull << 20, load.retried().constData());
    QCOMPARE(first.step, shoehorn::LadderStep::MoreExpertsOnCpu);
    const auto summary = load.summary();
    QVERIFY(summary.load.cpuMoeLayers > 0);
    QCOMPARE(summary.load.gpuLayers, 3); // both layers and the output stay on the device: only experts moved
    QVERIFY(!summary.measured.gpus.empty() && summary.measured.gpus.front().name == "Vulkan0");
    QVERIFY(summary.measured.gpus.front().use.weights() > 0);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QVERIFY(c.send(QStringLiteral("hi")));
    // Lavapipe builds each kernel at its first use (minutes with a cold shader cache).
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 900000);
    qInfo("loaded after %d retry(ies): %s buffer of %llu bytes refused, then --n-cpu-moe %d with %.1f MiB of weights "
          "on Vulkan0",
          int(load.retrying.count()), first.failure.buffer.c_str(), static_cast<unsigned long long>(first.failure.bytes),
          summary.load.cpuMoeLayers, double(summary.measured.gpus.front().use.weights()) / (1 << 20));
}

QTEST_GUILESS_MAIN(TestVulkanLadder)
#include "tst_vulkanladder.moc"
