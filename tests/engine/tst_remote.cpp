// RPC workers' endpoints as llama-server's --rpc takes them, and what a worker on this machine
// would serve. The worker and the client over TCP: tests/rpc/rpc_loopback.sh.
#include "hardware.h"
#include "remote.h"

#include <QtTest>

using namespace shoehorn;

class TestRemote : public QObject
{
    Q_OBJECT
private slots:
    void endpoints_data();
    void endpoints();
    void workerDevices();
    void devicesInLlamasOrder_data();
    void devicesInLlamasOrder();
};

void TestRemote::endpoints_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<QStringList>("parsed"); // empty: refused
    QTest::newRow("one") << "127.0.0.1:50052" << QStringList{"127.0.0.1:50052"};
    QTest::newRow("two") << "10.0.0.2:50052,gpu-box:50053" << QStringList{"10.0.0.2:50052", "gpu-box:50053"};
    QTest::newRow("IPv6") << "[::1]:50052" << QStringList{"[::1]:50052"};
    QTest::newRow("no port") << "localhost" << QStringList{};
    QTest::newRow("port 0") << "h:0" << QStringList{};
    QTest::newRow("port 65536") << "h:65536" << QStringList{};
    QTest::newRow("port not a number") << "h:50x" << QStringList{};
    QTest::newRow("empty entry") << "h:1," << QStringList{};
    QTest::newRow("no host") << ":50052" << QStringList{};
}

void TestRemote::endpoints()
{
    QFETCH(QString, list);
    QFETCH(QStringList, parsed);
    auto r = parseEndpoints(list.toStdString());
    if (parsed.isEmpty()) {
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(r.error().detail.find("--rpc takes host:port") != std::string::npos, r.error().detail.c_str());
        return;
    }
    QVERIFY2(r.ok(), r ? "" : r.error().detail.c_str());
    QStringList got;
    for (const auto &e : *r)
        got << QString::fromStdString(e);
    QCOMPARE(got, parsed);
}

// A CPU build lends its RAM (llama.cpp's rule: every GPU, else the CPU); an unknown device is named
// with the known ones.
void TestRemote::workerDevices()
{
    auto all = rpcWorkerDevices({});
    QVERIFY2(all.ok(), all ? "" : all.error().detail.c_str());
    QVERIFY(!all->empty());
    QCOMPARE(QString::fromStdString(all->front().name), QString("CPU"));
    QVERIFY(all->front().totalBytes > 0);
    RpcWorkerOptions named;
    named.devices = {"CUDA7"};
    auto unknown = rpcWorkerDevices(named);
    QVERIFY(!unknown.ok());
    QVERIFY2(unknown.error().detail.find("--device CUDA7: no such device here (devices: CPU") != std::string::npos,
             unknown.error().detail.c_str());
}

// Plans and loads count devices alike (-ts, per-device budgets) only in llama.cpp's order.
void TestRemote::devicesInLlamasOrder_data()
{
    QTest::addColumn<QStringList>("remote");
    QTest::addColumn<QStringList>("discrete");
    QTest::addColumn<QStringList>("integrated");
    QTest::addColumn<QStringList>("order");
    QTest::newRow("remote before the GPU") << QStringList{"RPC0"} << QStringList{"CUDA0"} << QStringList{}
                                           << QStringList{"RPC0", "CUDA0"};
    QTest::newRow("two of each") << QStringList{"RPC0", "RPC1"} << QStringList{"CUDA0", "CUDA1"} << QStringList{}
                                 << QStringList{"RPC0", "RPC1", "CUDA0", "CUDA1"};
    QTest::newRow("integrated only without a discrete GPU")
        << QStringList{"RPC0"} << QStringList{"CUDA0"} << QStringList{"iGPU0"} << QStringList{"RPC0", "CUDA0"};
    QTest::newRow("remote and integrated") << QStringList{"RPC0"} << QStringList{} << QStringList{"iGPU0"}
                                           << QStringList{"RPC0", "iGPU0"};
    // NAME@ID: the card's PCI bus id. One card seen by CUDA and Vulkan is one device, CUDA's
    // (registered first), as llama.cpp skips the second; "+" lists the skipped twin.
    QTest::newRow("one card, two backends") << QStringList{} << QStringList{"CUDA0@0000:01:00.0", "Vulkan0@0000:01:00.0"}
                                            << QStringList{} << QStringList{"CUDA0+Vulkan0"};
    QTest::newRow("two cards, two backends")
        << QStringList{} << QStringList{"CUDA0@0000:01:00.0", "CUDA1@0000:02:00.0", "Vulkan0@0000:02:00.0", "Vulkan1@0000:01:00.0"}
        << QStringList{} << QStringList{"CUDA0+Vulkan1", "CUDA1+Vulkan0"};
    QTest::newRow("an NVIDIA card on CUDA and an AMD one on Vulkan")
        << QStringList{} << QStringList{"CUDA0@0000:01:00.0", "Vulkan0@0000:01:00.0", "Vulkan1@0000:03:00.0"}
        << QStringList{} << QStringList{"CUDA0+Vulkan0", "Vulkan1"};
    QTest::newRow("no ids: nothing to match") << QStringList{} << QStringList{"CUDA0", "Vulkan0"} << QStringList{}
                                              << QStringList{"CUDA0", "Vulkan0"};
    QTest::newRow("an integrated GPU seen by two backends") << QStringList{} << QStringList{}
                                                            << QStringList{"Vulkan0", "SYCL0", "Vulkan1"}
                                                            << QStringList{"Vulkan0", "Vulkan1"};
}

void TestRemote::devicesInLlamasOrder()
{
    QFETCH(QStringList, remote);
    QFETCH(QStringList, discrete);
    QFETCH(QStringList, integrated);
    QFETCH(QStringList, order);
    const auto devices = [](const QStringList &names) {
        std::vector<shoehorn::GpuInfo> out;
        for (const QString &n : names) {
            shoehorn::GpuInfo g;
            g.name = n.section('@', 0, 0).toStdString();
            g.cardId = n.section('@', 1).toStdString();
            g.remote = n.startsWith("RPC");
            out.push_back(g);
        }
        return out;
    };
    QStringList got;
    for (const auto &g : shoehorn::llamaDeviceOrder(devices(remote), devices(discrete), devices(integrated))) {
        QString name = QString::fromStdString(g.name);
        for (const auto &twin : g.sameCard)
            name += "+" + QString::fromStdString(twin);
        got << name;
    }
    QCOMPARE(got, order);
}

QTEST_GUILESS_MAIN(TestRemote)
#include "tst_remote.moc"
