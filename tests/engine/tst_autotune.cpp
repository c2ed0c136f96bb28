// Auto-tune: the coordinate search against an exhaustive sweep, cancel, and the tuning story.
#include "autotune.h"
#include "testfixtures.h"
#include "validate.h"

#include <QtTest>

#include <cmath>

using namespace shoehorn;

namespace {
PlanTarget cpuTarget()
{
    PlanTarget t;
    t.name = "cpu";
    t.ramAvailableBytes = t.ramTotalBytes = 16 * GiB;
    t.physicalCores = 2;
    return t;
}

// A deterministic stand-in for timing: speed depends on every dimension, with one best point.
TuneMeasurement synthetic(const TuneCandidate &c)
{
    TuneMeasurement m;
    m.candidate = c;
    const auto &s = c.settings;
    double tg = 100;
    tg *= 1.0 + 0.1 * s.context.threads;
    tg *= s.context.flashAttention == FlashAttention::On ? 1.1 : 1.0;
    tg *= s.context.typeK == "q8_0" ? 1.05 : 1.0;
    tg *= s.context.ubatchSize == 256 ? 1.02 : 1.0;
    m.generate = {tg, 0, 3};
    m.prompt = {tg * 8, 0, 3};
    m.ok = true;
    return m;
}
} // namespace

class TestAutoTune : public QObject
{
    Q_OBJECT
private slots:
    void gridFitsAndFlagsQuality();
    void searchMatchesSweep();
    void realMeasurementsOnFixture();
    void cancelLeavesModelUsable();
    void tuningStory();
    void storyLeavesOutWhatChangesNothing();
    void speculationAxis_data();
    void speculationAxis();
    void speculationOnRandomWeights();
    void backendAxis_data();
    void backendAxis();
    void noiseRule_data();
    void noiseRule();
};

void TestAutoTune::gridFitsAndFlagsQuality()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    QVERIFY(info.ok());
    TuneRequest r;
    r.base.context.contextSize = 8192;
    r.target = targetFromProfile(*findProfile("rtx3060-12g"));
    r.includeQ4K = true;
    AutoTuner tuner(*info, r);
    const auto grid = tuner.grid();
    QVERIFY(grid.size() >= 8);
    bool sawQ4 = false;
    for (const auto &c : grid) {
        const MemoryPlan p = analyticPlan(*info, c.settings, r.target);
        QVERIFY(p.gpus[0].use.total() + r.marginBytes <= p.gpus[0].available); // within the budget
        QCOMPARE(c.lowerQuality, c.settings.context.typeK == "q4_0");
        sawQ4 |= c.lowerQuality;
        if (c.settings.context.typeV != "f16")
            QCOMPARE(c.settings.context.flashAttention, FlashAttention::On);
        QVERIFY(!validate(c.settings)); // nothing llama.cpp refuses
        // auto-fit's placement, or one of its safer neighbours
        QVERIFY(c.settings.load.gpuLayers == 49 || c.settings.load.gpuLayers == 45);
    }
    QVERIFY(sawQ4);
    // The q4_0 K configurations are measured but never chosen, even when faster.
    const TuneResult t = tuner.tune([](const TuneCandidate &c) {
        TuneMeasurement m = synthetic(c);
        if (c.lowerQuality)
            m.generate.mean *= 2;
        return m;
    });
    QVERIFY(!t.measurements[size_t(t.best)].candidate.lowerQuality);
    QVERIFY(std::any_of(t.measurements.begin(), t.measurements.end(),
                        [](const TuneMeasurement &m) { return m.candidate.lowerQuality; }));
}

void TestAutoTune::searchMatchesSweep()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    TuneRequest r;
    r.base.context.contextSize = 8192;
    r.target = targetFromProfile(*findProfile("rtx4090-24g"));
    r.threads = {2, 3, 4};
    AutoTuner tuner(*info, r);
    const TuneResult sweep = tuner.sweep(synthetic);
    const TuneResult tuned = tuner.tune(synthetic);
    QVERIFY(sweep.best >= 0 && tuned.best >= 0);
    const double best = sweep.measurements[size_t(sweep.best)].generate.mean;
    const double found = tuned.measurements[size_t(tuned.best)].generate.mean;
    std::printf("synthetic grid: sweep best %.1f t/s in %zu measurements, search %.1f t/s in %zu (%s)\n", best,
                sweep.measurements.size(), found, tuned.measurements.size(),
                tuned.measurements[size_t(tuned.best)].candidate.label.c_str());
    QVERIFY(found >= best * 0.95);
    QVERIFY(tuned.measurements.size() < sweep.measurements.size());
}

void TestAutoTune::realMeasurementsOnFixture()
{
    // The real thing on the tiny MoE: a small grid, measured; the search against the sweep.
    const QString path = TestFixtures::instance().tinyMoe();
    auto info = inspectModel(path.toStdString());
    TuneRequest r;
    r.base.context.contextSize = 512;
    r.target = cpuTarget();
    r.threads = {1, 2};
    r.ubatch = {128, 512};
    r.kvTypes = {"f16"};
    AutoTuner tuner(*info, r);
    BenchMeasurer measure(path.toStdString(), 64, 32, EarlyStop{3, 3, 0.0});
    const TuneResult sweep = tuner.sweep(std::ref(measure));
    const TuneResult tuned = tuner.tune(std::ref(measure));
    QVERIFY(sweep.best >= 0 && tuned.best >= 0);
    const double best = sweep.measurements[size_t(sweep.best)].generate.mean;
    const double found = tuned.measurements[size_t(tuned.best)].generate.mean;
    std::printf("tiny MoE: sweep best %.0f t/s (%s) of %zu; search %.0f t/s (%s) in %zu; ratio %.3f; %d load(s)\n",
                best, sweep.measurements[size_t(sweep.best)].candidate.label.c_str(), sweep.measurements.size(),
                found, tuned.measurements[size_t(tuned.best)].candidate.label.c_str(), tuned.measurements.size(),
                found / best, measure.loads());
    // Real measurements, really taken: every configuration was measured and is positive. How
    // good the search is, is proven without timing by searchMatchesSweep (a synthetic grid);
    // a speed comparison here would be a timed unit test, noisy on a shared 2-core machine.
    for (const TuneResult *t : {&sweep, &tuned})
        for (const auto &m : t->measurements) {
            QVERIFY2(m.ok && m.generate.mean > 0 && m.prompt.mean > 0, m.candidate.label.c_str());
            QVERIFY(m.generate.samples >= 3); // EarlyStop{3, 3}: exactly three runs
        }
    QCOMPARE(sweep.measurements.size(), size_t(8)); // threads {1, 2} x ubatch {128, 512} x flash attention on/off
    QVERIFY(tuned.measurements.size() <= sweep.measurements.size());
    QCOMPARE(measure.loads(), 1); // one placement: the weights were loaded once
}

void TestAutoTune::cancelLeavesModelUsable()
{
    const QString path = TestFixtures::instance().tinyLlama();
    auto info = inspectModel(path.toStdString());
    TuneRequest r;
    r.base.context.contextSize = 512;
    r.target = cpuTarget();
    r.threads = {1, 2};
    AutoTuner tuner(*info, r);
    std::atomic<bool> cancel{false};
    BenchMeasurer bench(path.toStdString(), 32, 8, EarlyStop{2, 2, 0.0});
    int calls = 0;
    const TuneResult t = tuner.tune(
        [&](const TuneCandidate &c) {
            if (++calls == 2)
                cancel = true;
            return bench(c);
        },
        &cancel);
    QVERIFY(t.cancelled);
    QCOMPARE(calls, 2);
    // The model that was being tuned still chats.
    auto model = Model::load(path.toStdString(), LoadSettings{0, 0, 0, LoadMode::Mmap, {}});
    QVERIFY(model.ok());
    auto session = ChatSession::create(*model, ContextSettings{});
    QVERIFY(session.ok());
    GenerationOptions o;
    o.maxTokens = 4;
    QVERIFY((*session)->generate({{"user", "still there?", {}}}, o).ok());
}

void TestAutoTune::tuningStory()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    TuneRequest r;
    r.base.context.contextSize = 8192;
    r.target = targetFromProfile(*findProfile("gtx1060-6g"));
    r.target.physicalCores = 6;
    AutoTuner tuner(*info, r);
    const auto steps = tuner.story(synthetic);
    QCOMPARE(steps.size(), size_t(5));
    QCOMPARE(QString::fromStdString(steps[0].name), QString("baseline"));
    QCOMPARE(steps[0].measurement.candidate.settings.load.gpuLayers, 0);
    QVERIFY(steps[1].measurement.candidate.settings.load.gpuLayers > 0); // + GPU layers
    QCOMPARE(QString::fromStdString(steps[2].measurement.candidate.settings.context.typeK), QString("q8_0"));
    QVERIFY(steps[3].measurement.candidate.settings.load.cpuMoeLayers > 0); // + experts to RAM, all layers
    QCOMPARE(steps[3].measurement.candidate.settings.load.gpuLayers, 49);
    QCOMPARE(steps[4].measurement.candidate.settings.context.threads, 6);
    QCOMPARE(steps[0].speedup, 1.0);
    QVERIFY(steps[4].speedup > 1.0);
    for (const auto &s : steps)
        std::printf("%-28s %-70s %6.1f t/s  x%.2f\n", s.name.c_str(), s.measurement.candidate.label.c_str(),
                    s.measurement.generate.mean, s.speedup);
}

// On a machine without a GPU, "+ GPU layers" and "+ more layers" change nothing: they are not
// rows that repeat the row above (the dialog showed four rows of one configuration). The story
// ends with the tuned best where that is another configuration.
void TestAutoTune::storyLeavesOutWhatChangesNothing()
{
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    TuneRequest r;
    r.base.context.contextSize = 4096;
    r.target = cpuTarget();
    r.target.ramAvailableBytes = r.target.ramTotalBytes = 32 * GiB; // the 30B shape takes 18
    AutoTuner tuner(*info, r);
    const TuneResult tuned = tuner.tune(synthetic);
    QVERIFY(tuned.best >= 0);
    TuneMeasurement other = synthetic(tuned.measurements[size_t(tuned.best)].candidate);
    other.candidate.settings.context.ubatchSize = 256;
    other.candidate.label = AutoTuner::label(other.candidate.settings);
    int measured = 0;
    auto counting = [&measured](const TuneCandidate &c) {
        ++measured;
        return synthetic(c);
    };
    const auto steps = tuner.story(counting, nullptr, &other);
    QStringList names;
    for (size_t i = 0; i < steps.size(); ++i) {
        names << QString::fromStdString(steps[i].name);
        if (i > 0)
            QVERIFY2(steps[i].measurement.candidate.label != steps[i - 1].measurement.candidate.label,
                     steps[i].name.c_str());
    }
    QCOMPARE(names, QStringList({"baseline", "q8_0 KV", "flash attention + threads", "best"}));
    QCOMPARE(steps.back().measurement.candidate.label, other.candidate.label);
    QCOMPARE(measured, 3); // the best as tune() measured it, not again
    // The best that is the last step already is not a row of its own; nor a speculation trial,
    // measured on the chat path where the steps measure raw generation.
    const auto same = tuner.story(synthetic, nullptr, &steps[2].measurement);
    QCOMPARE(same.size(), size_t(3));
    other.candidate.chatPath = true;
    QCOMPARE(tuner.story(synthetic, nullptr, &other).size(), size_t(3));
}

// Speculation as an axis (#29), with a stand-in for timing: the chat path is a little slower
// than raw generation, and each speculation choice gains what the row says.
void TestAutoTune::speculationAxis_data()
{
    QTest::addColumn<double>("mtp2Gain"); // draft-mtp with 2 drafts against none, on the chat path
    QTest::addColumn<double>("ngramGain");
    QTest::addColumn<QString>("chosen"); // the best's label contains this, or "" for no speculation
    QTest::newRow("MTP 2 drafts pays") << 1.25 << 1.05 << "--spec-type draft-mtp --spec-draft-n-max 2";
    QTest::newRow("n-gram pays most") << 1.10 << 1.30 << "--spec-type ngram-simple";
    QTest::newRow("within the noise: off") << 1.01 << 1.015 << "";
    QTest::newRow("slower: off") << 0.7 << 0.9 << "";
}

void TestAutoTune::speculationAxis()
{
    QFETCH(double, mtp2Gain);
    QFETCH(double, ngramGain);
    QFETCH(QString, chosen);
    auto info = inspectModel(TestFixtures::instance().qwen35_35bMtp().toStdString());
    QVERIFY(info.ok());
    TuneRequest r;
    r.base.context.contextSize = 8192;
    r.target = targetFromProfile(*findProfile("rtx4090-24g"));
    r.threads = {4};
    r.speculation = speculationChoices(*info);
    QCOMPARE(r.speculation.size(), size_t(5)); // MTP with 1-4 drafts, n-gram
    AutoTuner tuner(*info, r);
    int chatMeasurements = 0;
    auto measure = [&](const TuneCandidate &c) {
        TuneMeasurement m = synthetic(c);
        if (!c.chatPath)
            return m;
        ++chatMeasurements;
        const SpeculationSettings &spec = c.settings.context.speculation;
        double gain = 1.0;
        if (spec.mtp())
            gain = spec.draftMax == 2 ? mtp2Gain : 0.95;
        else if (spec.running() == "ngram-simple")
            gain = ngramGain;
        // The MTP layers are loaded exactly when MTP drafts.
        if (spec.mtp() != c.settings.load.mtpLayers)
            gain = 0;
        m.generate = {m.generate.mean * 0.9 * gain, m.generate.mean * 0.01, 5};
        return m;
    };
    const TuneResult t = tuner.tune(measure);
    QVERIFY(t.best >= 0);
    QCOMPARE(chatMeasurements, 7); // none, each choice on top of the best configuration, none again
    const TuneCandidate &best = t.measurements[size_t(t.best)].candidate;
    std::printf("%s: %s\n", QTest::currentDataTag(), best.label.c_str());
    if (chosen.isEmpty()) {
        QVERIFY(!best.settings.context.speculation.on());
        QVERIFY(!best.chatPath); // the best as measured like every other configuration
    } else {
        QVERIFY2(QString::fromStdString(best.label).contains(chosen), best.label.c_str());
        QCOMPARE(best.settings.load.mtpLayers, best.settings.context.speculation.mtp());
    }
}

void TestAutoTune::backendAxis_data()
{
    QTest::addColumn<double>("vulkanGain"); // the same configuration through Vulkan against CUDA
    QTest::addColumn<bool>("seenTwice");    // the card is seen by both backends
    QTest::addColumn<QString>("chosen");    // the best's backend
    QTest::newRow("Vulkan faster on this card") << 1.20 << true << "Vulkan";
    QTest::newRow("within the noise: the default") << 1.01 << true << "";
    QTest::newRow("slower: the default") << 0.80 << true << "";
    QTest::newRow("one backend per card: not tried") << 1.20 << false << "";
}

void TestAutoTune::backendAxis()
{
    QFETCH(double, vulkanGain);
    QFETCH(bool, seenTwice);
    QFETCH(QString, chosen);
    auto info = inspectModel(TestFixtures::instance().qwen3_30b().toStdString());
    QVERIFY(info.ok());
    TuneRequest r;
    r.base.context.contextSize = 8192;
    r.target = targetFromProfile(*findProfile("rtx3060-12g"));
    r.target.gpus[0].name = "CUDA0";
    if (seenTwice) {
        GpuInfo vulkan = r.target.gpus[0];
        vulkan.name = "Vulkan0";
        vulkan.sameCard = {"CUDA0"};
        r.target.gpus[0].sameCard = {"Vulkan0"};
        r.target.otherBackends = {vulkan};
    }
    r.threads = {4};
    AutoTuner tuner(*info, r);
    int throughVulkan = 0;
    auto measure = [&](const TuneCandidate &c) {
        TuneMeasurement m = synthetic(c);
        if (c.settings.load.backend == "Vulkan") {
            ++throughVulkan;
            m.generate.mean *= vulkanGain;
        }
        m.generate.stddev = m.generate.mean * 0.01;
        m.generate.samples = 5;
        return m;
    };
    const TuneResult t = tuner.tune(measure);
    QVERIFY(t.best >= 0);
    QCOMPARE(throughVulkan, seenTwice ? 1 : 0); // the best configuration once through the other backend
    const TuneCandidate &best = t.measurements[size_t(t.best)].candidate;
    std::printf("%s: %s\n", QTest::currentDataTag(), best.label.c_str());
    QCOMPARE(QString::fromStdString(best.settings.load.backend), chosen);
    QCOMPARE(QString::fromStdString(best.label).contains("--backend Vulkan"), !chosen.isEmpty());
}

// The real thing on the tiny MTP fixture: random weights accept (almost) no draft, so speculation
// only costs time and auto-tune leaves it off.
void TestAutoTune::speculationOnRandomWeights()
{
    const QString path = TestFixtures::instance().tinyMtp();
    auto info = inspectModel(path.toStdString());
    QVERIFY(info.ok());
    TuneRequest r;
    r.base.context.contextSize = 1024;
    r.target = cpuTarget();
    r.threads = {1};
    r.ubatch = {512};
    r.flash = {FlashAttention::On};
    r.kvTypes = {"f16"};
    r.speculation = speculationChoices(*info);
    r.speculation.resize(2); // MTP with 1 and 2 drafts: enough to see it measured
    AutoTuner tuner(*info, r);
    BenchMeasurer measure(path.toStdString(), 32, 48, EarlyStop{3, 3, 0.0});
    const TuneResult t = tuner.tune(std::ref(measure));
    QVERIFY(t.best >= 0);
    int chat = 0;
    for (const auto &m : t.measurements) {
        std::printf("%s: %.0f t/s%s\n", m.candidate.label.c_str(), m.generate.mean, m.ok ? "" : m.error.detail.c_str());
        QVERIFY2(m.ok, m.error.detail.c_str());
        chat += m.candidate.chatPath;
    }
    QCOMPARE(chat, 4);
    QVERIFY(!t.measurements[size_t(t.best)].candidate.settings.context.speculation.on());
    QCOMPARE(measure.loads(), 3); // without the MTP layer, with it, without it again
}

void TestAutoTune::noiseRule_data()
{
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("aSd");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("bSd");
    QTest::addColumn<bool>("faster");
    QTest::newRow("10 % faster, quiet") << 110.0 << 1.0 << 100.0 << 1.0 << true;
    QTest::newRow("1 % faster, quiet: under 2 %") << 101.0 << 0.1 << 100.0 << 0.1 << false;
    QTest::newRow("5 % faster, noisy") << 105.0 << 8.0 << 100.0 << 8.0 << false;
    QTest::newRow("slower") << 90.0 << 1.0 << 100.0 << 1.0 << false;
}

void TestAutoTune::noiseRule()
{
    QFETCH(double, a);
    QFETCH(double, aSd);
    QFETCH(double, b);
    QFETCH(double, bSd);
    QFETCH(bool, faster);
    QCOMPARE(fasterBeyondNoise({a, aSd, 4}, {b, bSd, 4}), faster);
}

QTEST_GUILESS_MAIN(TestAutoTune)
#include "tst_autotune.moc"
