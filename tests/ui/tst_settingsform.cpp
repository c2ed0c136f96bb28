// SettingsForm: llama.cpp's settings of one model as widgets. What it shows for a model, that
// what it holds reads back as it was given, and that only the user's edits are announced.
#include "modelinfo.h"
#include "settingsform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QThread>
#include <QtTest>

using namespace shoehorn;

class TestSettingsForm : public QObject
{
    Q_OBJECT
private slots:
    void followsTheModel_data();
    void followsTheModel();
    void readsBackWhatItShows_data();
    void readsBackWhatItShows();
    void onlyUserEditsAreAnnounced();
    void kvWarningForQ4K();
    void threadsWarningAboveTheCpus_data();
    void threadsWarningAboveTheCpus();

private:
    static ModelInfo model(uint32_t layers, uint32_t experts, uint32_t trained)
    {
        ModelInfo m;
        m.layerCount = layers;
        m.expertCount = experts;
        m.expertUsedCount = experts ? 8 : 0;
        m.contextLength = trained;
        return m;
    }
};

void TestSettingsForm::followsTheModel_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("trained");
    QTest::addColumn<int>("contextStops"); // 512, 1k, ... below the trained length, then it
    QTest::newRow("MoE, 40k trained") << 48 << 128 << 40960 << 8;
    QTest::newRow("dense, 128k trained") << 32 << 0 << 131072 << 9;
    QTest::newRow("dense, 2k trained") << 4 << 0 << 2048 << 3;
}

void TestSettingsForm::followsTheModel()
{
    QFETCH(int, layers);
    QFETCH(int, experts);
    QFETCH(int, trained);
    QFETCH(int, contextStops);
    SettingsForm form;
    form.show();
    QVERIFY(!form.findChild<QSlider *>("gpuLayers")->isEnabled()); // no model yet
    const ModelInfo m = model(layers, experts, trained);
    form.setModel(&m);
    auto *gpu = form.findChild<QSlider *>("gpuLayers");
    QVERIFY(gpu->isEnabled());
    QCOMPARE(gpu->maximum(), layers + 1); // the output layer too: "all"
    QCOMPARE(form.findChild<QSlider *>("cpuMoe")->maximum(), layers);
    QCOMPARE(form.findChild<QSlider *>("cpuMoe")->isVisible(), experts > 0);
    QCOMPARE(form.findChild<QSlider *>("contextSize")->maximum(), contextStops - 1);
    ModelSettings s;
    s.context.contextSize = uint32_t(trained);
    form.setSettings(s);
    QCOMPARE(form.settings({}).context.contextSize, uint32_t(trained));
}

void TestSettingsForm::readsBackWhatItShows_data()
{
    QTest::addColumn<int>("gpuLayers");
    QTest::addColumn<int>("cpuMoe");
    QTest::addColumn<uint>("context");
    QTest::addColumn<QString>("kv");
    QTest::addColumn<int>("threads");
    QTest::newRow("all layers, experts of 10 in RAM, 32k q8_0") << -1 << 10 << 32768u << "q8_0" << 6;
    QTest::newRow("20 layers, 8k f16, auto threads") << 20 << 0 << 8192u << "f16" << 0;
    QTest::newRow("none on the GPU, 4k q4_0") << 0 << 0 << 4096u << "q4_0" << 2;
}

void TestSettingsForm::readsBackWhatItShows()
{
    QFETCH(int, gpuLayers);
    QFETCH(int, cpuMoe);
    QFETCH(uint, context);
    QFETCH(QString, kv);
    QFETCH(int, threads);
    SettingsForm form;
    const ModelInfo m = model(48, 128, 40960);
    form.setModel(&m);
    ModelSettings s;
    s.load.gpuLayers = gpuLayers;
    s.load.cpuMoeLayers = cpuMoe;
    s.load.loadMode = LoadMode::NoMmap;
    s.context.contextSize = context;
    s.context.typeK = s.context.typeV = kv.toStdString();
    s.context.flashAttention = FlashAttention::On;
    s.context.threads = threads;
    s.context.batchSize = 1024;
    s.context.ubatchSize = 256;
    s.locks = {true, false, true, false};
    form.setSettings(s);
    ModelSettings base;
    base.projector = QStringLiteral("/m/mmproj.gguf"); // not the form's: kept from the base
    const ModelSettings read = form.settings(base);
    QCOMPARE(read.load.gpuLayers, gpuLayers);
    QCOMPARE(read.load.cpuMoeLayers, cpuMoe);
    QCOMPARE(int(read.load.loadMode), int(LoadMode::NoMmap));
    QCOMPARE(read.context.contextSize, context);
    QCOMPARE(QString::fromStdString(read.context.typeK), kv);
    QCOMPARE(QString::fromStdString(read.context.typeV), kv);
    QCOMPARE(int(read.context.flashAttention), int(FlashAttention::On));
    QCOMPARE(read.context.threads, threads);
    QCOMPARE(read.context.batchSize, 1024u);
    QCOMPARE(read.context.ubatchSize, 256u);
    QVERIFY(read.locks.gpuLayers && !read.locks.cpuMoeLayers && read.locks.contextSize && !read.locks.kvType);
    QCOMPARE(read.projector, base.projector);
}

void TestSettingsForm::onlyUserEditsAreAnnounced()
{
    SettingsForm form;
    const ModelInfo m = model(48, 128, 40960);
    form.setModel(&m);
    QSignalSpy edited(&form, &SettingsForm::edited);
    ModelSettings s;
    s.load.gpuLayers = 30;
    s.context.contextSize = 16384;
    form.setSettings(s); // the controller's settings shown: not an edit
    QCOMPARE(edited.count(), 0);
    form.findChild<QSlider *>("gpuLayers")->setValue(12); // the user moves a slider
    QCOMPARE(edited.count(), 1);
    QCOMPARE(form.settings({}).load.gpuLayers, 12);
    form.findChild<QCheckBox *>("lockKv")->setChecked(true);
    form.findChild<QComboBox *>("typeK")->setCurrentText("q8_0");
    QCOMPARE(edited.count(), 3);
}

void TestSettingsForm::kvWarningForQ4K()
{
    SettingsForm form;
    form.show();
    const ModelInfo m = model(8, 0, 8192);
    form.setModel(&m);
    auto *warning = form.findChild<QLabel *>("kvWarning");
    QVERIFY(!warning->isVisible());
    form.findChild<QComboBox *>("typeK")->setCurrentText("q4_0");
    QVERIFY(warning->isVisible());
    ModelSettings s;
    s.context.typeK = "f16";
    form.setSettings(s);
    QVERIFY(!warning->isVisible());
}

void TestSettingsForm::threadsWarningAboveTheCpus_data()
{
    QTest::addColumn<int>("overCpus"); // the threads asked for, past the CPU threads (0: auto)
    QTest::addColumn<bool>("warned");
    QTest::newRow("auto") << -1 << false;
    QTest::newRow("as many as the CPUs") << 0 << false;
    QTest::newRow("one more") << 1 << true;
    QTest::newRow("four times") << 3 << true;
}

// More threads than the CPUs run at once are many times slower: said under the box, as the
// CLI says it; auto and up to the CPU count say nothing.
void TestSettingsForm::threadsWarningAboveTheCpus()
{
    QFETCH(int, overCpus);
    QFETCH(bool, warned);
    SettingsForm form;
    form.show();
    const ModelInfo m = model(8, 0, 8192);
    form.setModel(&m);
    const int cpus = QThread::idealThreadCount();
    const int threads = overCpus < 0 ? 0 : overCpus == 3 ? 4 * cpus : cpus + overCpus;
    if (threads > 256)
        QSKIP("the box goes to 256 threads, not past this machine's CPUs");
    auto *warning = form.findChild<QLabel *>("threadsWarning");
    QVERIFY(!warning->isVisible());
    form.findChild<QSpinBox *>("threads")->setValue(threads);
    QCOMPARE(warning->isVisible(), warned);
    if (warned)
        QVERIFY2(warning->text().contains(QString::number(cpus) + " CPU thread"), qPrintable(warning->text()));
    ModelSettings s;
    s.context.threads = threads;
    form.setSettings(s); // a model's saved settings show the same
    QCOMPARE(warning->isVisible(), warned);
    form.setModel(nullptr); // no model: nothing to warn about in a form that cannot be edited
    QVERIFY(!warning->isVisible());
}

QTEST_MAIN(TestSettingsForm)
#include "tst_settingsform.moc"
