// Benchmark math (mean, sd, early stop) and a run on the tiny fixture. No speed is asserted:
// speed targets are proven by shoehorn-cli parity, side by side with llama-bench.
#include "benchmark.h"
#include "testfixtures.h"

#include <QtTest>

using namespace shoehorn;

class TestBenchmark : public QObject
{
    Q_OBJECT
private slots:
    void summarize_data();
    void summarize();
    void earlyStop_data();
    void earlyStop();
    void runsOnTinyModel();
};

void TestBenchmark::summarize_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("sd");
    QTest::newRow("empty") << QList<double>{} << 0.0 << 0.0;
    QTest::newRow("one") << QList<double>{5} << 5.0 << 0.0;
    QTest::newRow("two") << QList<double>{2, 4} << 3.0 << std::sqrt(2.0);
    // Sample (n-1) standard deviation, as llama-bench reports it.
    QTest::newRow("five") << QList<double>{10, 12, 23, 23, 16} << 16.8 << std::sqrt(36.7);
}

void TestBenchmark::summarize()
{
    QFETCH(QList<double>, values);
    QFETCH(double, mean);
    QFETCH(double, sd);
    const Stats s = shoehorn::summarize(std::vector<double>(values.begin(), values.end()));
    QCOMPARE(s.samples, int(values.size()));
    QVERIFY(std::abs(s.mean - mean) < 1e-9);
    QVERIFY(std::abs(s.stddev - sd) < 1e-9);
}

void TestBenchmark::earlyStop_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<bool>("done");
    QTest::newRow("too few") << QList<double>{100} << false;
    QTest::newRow("steady") << QList<double>{100, 100.5, 99.8} << true;
    QTest::newRow("noisy") << QList<double>{100, 150, 60} << false;
    QTest::newRow("max reached") << QList<double>{100, 150, 60, 120, 80} << true;
}

void TestBenchmark::earlyStop()
{
    QFETCH(QList<double>, values);
    QFETCH(bool, done);
    const EarlyStop stop{2, 5, 0.02};
    QCOMPARE(stop.done(std::vector<double>(values.begin(), values.end())), done);
}

void TestBenchmark::runsOnTinyModel()
{
    LoadSettings ls;
    ls.gpuLayers = 0;
    auto model = Model::load(TestFixtures::instance().tinyMoe().toStdString(), ls);
    QVERIFY(model.ok());
    ContextSettings cs;
    cs.threads = 2;
    BenchRequest r;
    r.promptTokens = 64;
    r.generateTokens = 16;
    r.repetitions = 3;
    std::vector<std::string> steps;
    auto res = runBenchmark(*model, cs, r, nullptr, [&](const std::string &s) { steps.push_back(s); });
    QVERIFY2(res.ok(), res.ok() ? "" : res.error().detail.c_str());
    QCOMPARE(res->promptRuns.size(), size_t(3));
    QCOMPARE(res->generateRuns.size(), size_t(3));
    QVERIFY(res->chatRuns.size() >= 1);
    QVERIFY(res->promptTps.mean > 0 && res->generateTps.mean > 0 && res->chatTps.mean > 0);
    QVERIFY(steps.size() >= 7);
    // Cancel stops it between runs and leaves the model usable.
    std::atomic<bool> cancel{true};
    auto cancelled = runBenchmark(*model, cs, r, &cancel);
    QVERIFY(cancelled.ok());
    QVERIFY(cancelled->promptRuns.empty());
    QVERIFY(runBenchmark(*model, cs, r).ok());
}

QTEST_GUILESS_MAIN(TestBenchmark)
#include "tst_benchmark.moc"
