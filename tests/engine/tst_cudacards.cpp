// Which NVIDIA cards the CUDA module runs: the code its fatbin holds (read from the packaged
// module itself when this build has one) and the rule that matches it to a card.
#include "cudacards.h"

#include <QtTest>

using namespace shoehorn::internal;

namespace {
// What @node-llama-cpp/linux-x64-cuda@3.21.1 holds: machine code for 8.6, 8.9, 12.0a and 12.1a,
// PTX for 7.5, 8.0 and 9.0.
const std::vector<CudaCode> kShipped = {{false, 86}, {false, 89}, {false, 120}, {false, 121},
                                        {true, 75},  {true, 80},  {true, 90}};
} // namespace

class TestCudaCards : public QObject
{
    Q_OBJECT
private slots:
    void theShippedModule();
    void notAModule();
    void runs_data();
    void runs();
};

void TestCudaCards::theShippedModule()
{
#ifdef SHOEHORN_CUDA_MODULE
    const auto code = cudaModuleCode(SHOEHORN_CUDA_MODULE);
    QCOMPARE(QString::fromStdString(cudaArchList(code)), QStringLiteral("7.5, 8.0, 8.6, 8.9, 9.0, 12.0, 12.1"));
    QCOMPARE(code.size(), kShipped.size());
    for (const CudaCode &c : kShipped)
        QVERIFY2(std::any_of(code.begin(), code.end(), [&](const CudaCode &x) { return x.ptx == c.ptx && x.arch == c.arch; }),
                 qPrintable(QString("%1 %2").arg(c.ptx ? "PTX" : "machine code").arg(c.arch)));
#else
    QSKIP("this build packages no CUDA module (no CUDA 13 runtime at configure time)");
#endif
}

void TestCudaCards::notAModule()
{
    QVERIFY(cudaModuleCode("/nonexistent/libggml-cuda.so").empty());
    QVERIFY(cudaModuleCode(QCoreApplication::applicationFilePath().toStdString()).empty()); // an ELF without a fatbin
    QTemporaryFile junk;
    QVERIFY(junk.open());
    junk.write(QByteArray(4096, 'x'));
    junk.close();
    QVERIFY(cudaModuleCode(junk.fileName().toStdString()).empty());
}

void TestCudaCards::runs_data()
{
    QTest::addColumn<int>("major");
    QTest::addColumn<int>("minor");
    QTest::addColumn<bool>("runs");
    QTest::newRow("GTX 1060 (6.1): CUDA 13 has no Pascal") << 6 << 1 << false;
    QTest::newRow("V100 (7.0): the PTX is 7.5 and newer") << 7 << 0 << false;
    QTest::newRow("RTX 2060, GTX 1660 (7.5): PTX") << 7 << 5 << true;
    QTest::newRow("A100 (8.0): PTX") << 8 << 0 << true;
    QTest::newRow("RTX 3060 (8.6): machine code") << 8 << 6 << true;
    QTest::newRow("Jetson Orin (8.7): 8.6's machine code") << 8 << 7 << true;
    QTest::newRow("RTX 4060 (8.9)") << 8 << 9 << true;
    QTest::newRow("H100 (9.0): PTX") << 9 << 0 << true;
    QTest::newRow("B200 (10.0): 9.0's PTX") << 10 << 0 << true;
    QTest::newRow("RTX 5060 (12.0)") << 12 << 0 << true;
}

void TestCudaCards::runs()
{
    QFETCH(int, major);
    QFETCH(int, minor);
    QFETCH(bool, runs);
    QCOMPARE(cudaRuns(kShipped, major, minor), runs);
    // Without the PTX, only the machine code's own cards (architecture-specific from 9.0 on).
    std::vector<CudaCode> machineOnly;
    std::copy_if(kShipped.begin(), kShipped.end(), std::back_inserter(machineOnly), [](const CudaCode &c) { return !c.ptx; });
    const bool native = (major == 8 && minor >= 6) || (major == 12 && minor <= 1);
    QCOMPARE(cudaRuns(machineOnly, major, minor), native);
}

QTEST_GUILESS_MAIN(TestCudaCards)
#include "tst_cudacards.moc"
