// Per-model settings: every field survives QSettings, damaged values fall back to the
// defaults, the generation JSON (also stored per chat) keeps its key names, and a
// llama-server preset file becomes one stored entry per model.
#include "appsettings.h"
#include "modelsettings.h"
#include "presetimport.h"
#include "seedpreset.h"
#include "testsettings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace shoehorn;

Q_DECLARE_METATYPE(ModelSettings)

namespace {

// Every stored field as "name=value", so a failed comparison names the field.
QStringList describe(const GenerationOptions &g)
{
    const auto &s = g.sampling;
    QStringList out{QString("temperature=%1").arg(double(s.temperature)),
                    QString("topK=%1").arg(s.topK),
                    QString("topP=%1").arg(double(s.topP)),
                    QString("minP=%1").arg(double(s.minP)),
                    QString("repeatPenalty=%1").arg(double(s.repeatPenalty)),
                    QString("presencePenalty=%1").arg(double(s.presencePenalty)),
                    QString("seed=%1").arg(s.seed),
                    QString("maxTokens=%1").arg(g.maxTokens),
                    QString("enableThinking=%1").arg(g.enableThinking)};
    for (const auto &[k, v] : g.templateKwargs)
        out << QString("kwarg %1=%2").arg(QString::fromStdString(k), QString::fromStdString(v));
    return out;
}

QStringList describe(const ModelSettings &s)
{
    return QStringList{QString("gpuLayers=%1").arg(s.load.gpuLayers),
                       QString("cpuMoeLayers=%1").arg(s.load.cpuMoeLayers),
                       QString("mainGpu=%1").arg(s.load.mainGpu),
                       QString("devices=%1").arg(QString::fromStdString(deviceListText(s.load.devices))),
                       QString("backend=%1").arg(QString::fromStdString(s.load.backend)),
                       QString("loadMode=%1").arg(loadModeName(s.load.loadMode)),
                       QString("contextSize=%1").arg(s.context.contextSize),
                       QString("batchSize=%1").arg(s.context.batchSize),
                       QString("ubatchSize=%1").arg(s.context.ubatchSize),
                       QString("typeK=%1").arg(QString::fromStdString(s.context.typeK)),
                       QString("typeV=%1").arg(QString::fromStdString(s.context.typeV)),
                       QString("flashAttention=%1").arg(flashAttentionName(s.context.flashAttention)),
                       QString("threads=%1").arg(s.context.threads),
                       QString("threadsBatch=%1").arg(s.context.threadsBatch),
                       QString("lockGpuLayers=%1").arg(s.locks.gpuLayers),
                       QString("lockCpuMoeLayers=%1").arg(s.locks.cpuMoeLayers),
                       QString("lockContextSize=%1").arg(s.locks.contextSize),
                       QString("lockKvType=%1").arg(s.locks.kvType),
                       QString("speculation=%1").arg(QString::fromStdString(s.context.speculation.types)),
                       QString("draftModel=%1").arg(QString::fromStdString(s.context.speculation.draftModel)),
                       QString("draftMax=%1").arg(s.context.speculation.draftMax),
                       QString("speculationAuto=%1").arg(s.speculationAuto),
                       QString("mtpLayers=%1").arg(s.load.mtpLayers)} +
           describe(s.generation);
}

// Settings with every stored field away from its default.
ModelSettings everythingChanged()
{
    ModelSettings s;
    s.load = {33, 7, 1, LoadMode::Mlock, {0.25f, 0.75f}};
    s.load.devices = {"Vulkan1", "CUDA0"};
    s.load.backend = "Vulkan";
    s.context.contextSize = 65536;
    s.context.batchSize = 1024;
    s.context.ubatchSize = 256;
    s.context.typeK = "q8_0";
    s.context.typeV = "q4_0";
    s.context.flashAttention = FlashAttention::On;
    s.context.threads = 6;
    s.context.threadsBatch = 12;
    auto &sm = s.generation.sampling;
    sm.temperature = 0.6f;
    sm.topK = 20;
    sm.topP = 0.8f;
    sm.minP = 0.0f;
    sm.repeatPenalty = 1.1f;
    sm.presencePenalty = 1.5f;
    sm.seed = 42;
    s.generation.maxTokens = 512;
    s.generation.enableThinking = false;
    s.generation.templateKwargs = {{"reasoning_effort", "\"low\""}, {"custom", "{\"a\":[1,2]}"}};
    s.locks = {true, true, true, true};
    return s;
}

QString text(const QJsonValue &v)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
}

// The stored JSON of the one model saved so far (its key is the store's business).
QString onlyKey()
{
    AppSettings::waitForWrites(); // the store writes in the background
    QSettings settings;
    settings.beginGroup("modelSettings");
    const QStringList keys = settings.childKeys();
    return keys.size() == 1 ? "modelSettings/" + keys.first() : QString();
}

} // namespace

class TestModelSettings : public QObject
{
    Q_OBJECT
private:
    QString m_settingsDir;

private slots:
    void templateArgumentsDoNotCarryOver();
    void initTestCase();
    void init();
    void settingsStayInTheTestDirectory();
    void roundTrip_data();
    void roundTrip();
    void pathsAreKeptApart();
    void forget();
    void invalidValuesKeepDefaults_data();
    void invalidValuesKeepDefaults();
    void unreadableEntryIsNotLoaded_data();
    void unreadableEntryIsNotLoaded();
    void generationJsonRoundTrip();
    void generationJsonKeepsWhatItDoesNotName_data();
    void generationJsonKeepsWhatItDoesNotName();
    void generationJsonReadsStoredFormat();
    void importPresets();
    void importedFileFindsRelativeModelsBesideIt();
};

void TestModelSettings::initTestCase()
{
    m_settingsDir = isolateSettings();
}

void TestModelSettings::init()
{
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
}

void TestModelSettings::settingsStayInTheTestDirectory()
{
    ModelSettingsStore::save("/m/a.gguf", ModelSettings{});
    AppSettings::waitForWrites(); // the store writes in the background
    QSettings settings;
    settings.sync();
    QVERIFY2(settings.fileName().startsWith(m_settingsDir), qPrintable(settings.fileName()));
    QVERIFY(QFile::exists(settings.fileName()));
}

void TestModelSettings::roundTrip_data()
{
    QTest::addColumn<ModelSettings>("settings");
    auto row = [](const char *name, auto change) {
        ModelSettings s;
        change(s);
        QTest::newRow(name) << s;
    };
    row("gpuLayers 0 (CPU only)", [](ModelSettings &s) { s.load.gpuLayers = 0; });
    row("gpuLayers 33", [](ModelSettings &s) { s.load.gpuLayers = 33; });
    row("cpuMoeLayers", [](ModelSettings &s) { s.load.cpuMoeLayers = 12; });
    row("mainGpu", [](ModelSettings &s) { s.load.mainGpu = 2; });
    row("loadMode no-mmap", [](ModelSettings &s) { s.load.loadMode = LoadMode::NoMmap; });
    row("loadMode mlock", [](ModelSettings &s) { s.load.loadMode = LoadMode::Mlock; });
    row("contextSize 0 (trained)", [](ModelSettings &s) { s.context.contextSize = 0; });
    row("contextSize 262144", [](ModelSettings &s) { s.context.contextSize = 262144; });
    row("batchSize", [](ModelSettings &s) { s.context.batchSize = 512; });
    row("ubatchSize", [](ModelSettings &s) { s.context.ubatchSize = 128; });
    row("typeK", [](ModelSettings &s) { s.context.typeK = "q8_0"; });
    row("typeV", [](ModelSettings &s) { s.context.typeV = "q4_0"; });
    row("flash attention on", [](ModelSettings &s) { s.context.flashAttention = FlashAttention::On; });
    row("flash attention off", [](ModelSettings &s) { s.context.flashAttention = FlashAttention::Off; });
    row("threads", [](ModelSettings &s) { s.context.threads = 5; });
    row("threadsBatch", [](ModelSettings &s) { s.context.threadsBatch = 9; });
    row("speculation n-gram", [](ModelSettings &s) { s.context.speculation.types = "ngram-simple"; });
    row("speculation MTP (its layers loaded)", [](ModelSettings &s) {
        s.context.speculation.types = "draft-mtp";
        s.load.mtpLayers = true;
    });
    row("draft model", [](ModelSettings &s) {
        s.context.speculation.types = "draft-simple";
        s.context.speculation.draftModel = "/m/small.gguf";
    });
    row("MTP with 2 drafts", [](ModelSettings &s) {
        s.context.speculation.types = "draft-mtp";
        s.context.speculation.draftMax = 2;
        s.load.mtpLayers = true;
    });
    row("speculation Auto", [](ModelSettings &s) { s.speculationAuto = true; });
    row("GPU backend", [](ModelSettings &s) { s.load.backend = "Vulkan"; });
    row("--device list", [](ModelSettings &s) { s.load.devices = {"Vulkan0", "CUDA1"}; });
    row("--device none", [](ModelSettings &s) { s.load.devices = {"none"}; });
    row("temperature", [](ModelSettings &s) { s.generation.sampling.temperature = 0.25f; });
    row("temperature 0", [](ModelSettings &s) { s.generation.sampling.temperature = 0.0f; });
    row("topK", [](ModelSettings &s) { s.generation.sampling.topK = 7; });
    row("topP", [](ModelSettings &s) { s.generation.sampling.topP = 0.5f; });
    row("minP", [](ModelSettings &s) { s.generation.sampling.minP = 0.1f; });
    row("repeatPenalty", [](ModelSettings &s) { s.generation.sampling.repeatPenalty = 1.3f; });
    row("presencePenalty", [](ModelSettings &s) { s.generation.sampling.presencePenalty = 1.5f; });
    row("seed 0", [](ModelSettings &s) { s.generation.sampling.seed = 0; });
    row("seed 42", [](ModelSettings &s) { s.generation.sampling.seed = 42; });
    row("maxTokens", [](ModelSettings &s) { s.generation.maxTokens = 300; });
    row("thinking off", [](ModelSettings &s) { s.generation.enableThinking = false; });
    row("template kwargs", [](ModelSettings &s) {
        s.generation.templateKwargs = {{"reasoning_effort", "\"high\""}, {"n", "3"}};
    });
    row("lock gpuLayers", [](ModelSettings &s) { s.locks.gpuLayers = true; });
    row("lock cpuMoeLayers", [](ModelSettings &s) { s.locks.cpuMoeLayers = true; });
    row("lock contextSize", [](ModelSettings &s) { s.locks.contextSize = true; });
    row("lock kvType", [](ModelSettings &s) { s.locks.kvType = true; });
    QTest::newRow("everything") << everythingChanged();
}

void TestModelSettings::roundTrip()
{
    QFETCH(ModelSettings, settings);
    QVERIFY(!(settings == ModelSettings{})); // the row changes something the comparison sees
    const QString path = "/models/Qwen3 30B/模型 \"best\".gguf";
    ModelSettingsStore::save(path, settings);
    const std::optional<ModelSettings> loaded = ModelSettingsStore::load(path);
    QVERIFY(loaded);
    QCOMPARE(describe(*loaded), describe(settings));
    QVERIFY(*loaded == settings);
}

void TestModelSettings::pathsAreKeptApart()
{
    const ModelSettings a = everythingChanged();
    ModelSettings b;
    b.context.contextSize = 8192;
    ModelSettingsStore::save("/m/a.gguf", a);
    ModelSettingsStore::save("/m/b.gguf", b);
    QVERIFY(!ModelSettingsStore::load("/m/c.gguf"));
    QVERIFY(!ModelSettingsStore::load("/m/A.gguf"));
    QCOMPARE(describe(ModelSettingsStore::load("/m/a.gguf").value()), describe(a));
    QCOMPARE(describe(ModelSettingsStore::load("/m/b.gguf").value()), describe(b));
    // Saving again replaces, and does not touch the other model.
    ModelSettingsStore::save("/m/a.gguf", b);
    QCOMPARE(describe(ModelSettingsStore::load("/m/a.gguf").value()), describe(b));
    AppSettings::waitForWrites(); // the store writes in the background
    QCOMPARE(QSettings().allKeys().size(), 2);
}

void TestModelSettings::forget()
{
    ModelSettingsStore::save("/m/a.gguf", everythingChanged());
    ModelSettingsStore::save("/m/b.gguf", everythingChanged());
    ModelSettingsStore::forget("/m/a.gguf");
    QVERIFY(!ModelSettingsStore::load("/m/a.gguf"));
    QVERIFY(ModelSettingsStore::load("/m/b.gguf"));
}

void TestModelSettings::invalidValuesKeepDefaults_data()
{
    // A stored entry edited by hand or written by a future version: one key with a value this
    // version cannot use. The rest of the entry still loads.
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value"); // JSON
    QTest::newRow("loadMode unknown") << "loadMode" << R"("turbo")";
    QTest::newRow("loadMode number") << "loadMode" << "2";
    QTest::newRow("flashAttention unknown") << "flashAttention" << R"("maybe")";
    QTest::newRow("typeK unknown") << "typeK" << R"("q3_weird")";
    QTest::newRow("typeK number") << "typeK" << "8";
    QTest::newRow("typeV empty") << "typeV" << R"("")";
    QTest::newRow("speculation unknown") << "speculation" << R"("draft-psychic")";
    QTest::newRow("gpuLayers text") << "gpuLayers" << R"("lots")";
    QTest::newRow("cpuMoeLayers null") << "cpuMoeLayers" << "null";
    QTest::newRow("contextSize text") << "contextSize" << R"("big")";
    QTest::newRow("contextSize array") << "contextSize" << "[1]";
    QTest::newRow("batchSize object") << "batchSize" << "{}";
    QTest::newRow("threads text") << "threads" << R"("many")";
    QTest::newRow("temperature text") << "temperature" << R"("hot")";
    QTest::newRow("topK bool") << "topK" << "true";
    QTest::newRow("seed text") << "seed" << R"("random")";
    QTest::newRow("maxTokens text") << "maxTokens" << R"("long")";
    QTest::newRow("enableThinking text") << "enableThinking" << R"("no")";
    QTest::newRow("templateKwargs not an object") << "templateKwargs" << R"("x=1")";
    QTest::newRow("unknown key") << "speculativeDecoding" << "true";
    QTest::newRow("contextSize negative") << "contextSize" << "-1";
    QTest::newRow("ubatchSize negative") << "ubatchSize" << "-512";
}

void TestModelSettings::invalidValuesKeepDefaults()
{
    QFETCH(QString, key);
    QFETCH(QString, value);
    const QString path = "/m/edited.gguf";
    ModelSettings stored; // defaults, except one field that must survive the bad one
    stored.generation.sampling.topP = 0.5f;
    ModelSettingsStore::save(path, stored);
    const QString entry = onlyKey();
    QVERIFY(!entry.isEmpty());
    QJsonObject json = QJsonDocument::fromJson(QSettings().value(entry).toByteArray()).object();
    QVERIFY(!json.isEmpty());
    const QJsonValue bad = QJsonDocument::fromJson("[" + value.toUtf8() + "]").array().at(0);
    QCOMPARE(json.contains(key), key != "speculativeDecoding"); // the row names a stored key
    json.insert(key, bad);
    QSettings().setValue(entry, QJsonDocument(json).toJson(QJsonDocument::Compact));

    QCOMPARE(describe(ModelSettingsStore::load(path).value()), describe(stored));
}

void TestModelSettings::unreadableEntryIsNotLoaded_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("not JSON") << QByteArray("gpuLayers=3");
    QTest::newRow("cut off") << QByteArray(R"({"gpuLayers":3,"contextSi)");
    QTest::newRow("array") << QByteArray(R"([{"gpuLayers":3}])");
    QTest::newRow("string") << QByteArray(R"("gpuLayers")");
}

void TestModelSettings::unreadableEntryIsNotLoaded()
{
    QFETCH(QByteArray, raw);
    ModelSettingsStore::save("/m/x.gguf", ModelSettings{});
    const QString entry = onlyKey();
    QVERIFY(!entry.isEmpty());
    QSettings().setValue(entry, raw);
    QVERIFY(!ModelSettingsStore::load("/m/x.gguf", everythingChanged()));
}

void TestModelSettings::generationJsonRoundTrip()
{
    const GenerationOptions g = everythingChanged().generation;
    GenerationOptions read;
    generationFromJson(generationToJson(g), read);
    QCOMPARE(describe(read), describe(g));
    QVERIFY(read.sampling == g.sampling);
    // Through text, as ChatStore keeps it.
    GenerationOptions viaText;
    generationFromJson(
        QJsonDocument::fromJson(QJsonDocument(generationToJson(g)).toJson(QJsonDocument::Compact)).object(), viaText);
    QCOMPARE(describe(viaText), describe(g));
    // The default seed (random) is 0xFFFFFFFF: it must not come back as -1 or 0.
    GenerationOptions random;
    random.sampling.seed = 0xFFFFFFFFu;
    GenerationOptions seeded;
    seeded.sampling.seed = 7;
    generationFromJson(generationToJson(random), seeded);
    QCOMPARE(seeded.sampling.seed, 0xFFFFFFFFu);
}

void TestModelSettings::generationJsonKeepsWhatItDoesNotName_data()
{
    QTest::addColumn<QString>("key");
    const QJsonObject all = generationToJson(GenerationOptions{});
    QVERIFY(all.size() >= 10);
    for (const QString &key : all.keys())
        QTest::newRow(qPrintable(key)) << key;
}

void TestModelSettings::generationJsonKeepsWhatItDoesNotName()
{
    QFETCH(QString, key);
    // JSON without `key`, read over options that differ everywhere: only `key` stays.
    GenerationOptions base;
    base.sampling = {0.1f, 2, 0.3f, 0.4f, 1.5f, 64, 0.6f, 0.0f, 7};
    base.maxTokens = 8;
    base.enableThinking = false;
    base.templateKwargs = {{"reasoning_effort", "\"medium\""}};
    const GenerationOptions other = everythingChanged().generation;
    QJsonObject json = generationToJson(other);
    QVERIFY(json.contains(key));
    json.remove(key);
    GenerationOptions read = base;
    generationFromJson(json, read);
    const QJsonObject result = generationToJson(read);
    const QJsonObject expectBase = generationToJson(base);
    for (const QString &k : result.keys()) {
        if (k == "templateKwargs")
            continue;
        QCOMPARE(text(result.value(k)), text(k == key ? expectBase.value(k) : json.value(k)));
    }
    // Template arguments merge: the JSON's are set (replacing one, adding one), the others stay.
    auto kwarg = [&read](const std::string &name) {
        const auto it = read.templateKwargs.find(name);
        return it == read.templateKwargs.end() ? QString("(none)") : QString::fromStdString(it->second);
    };
    const bool named = key != "templateKwargs";
    QCOMPARE(kwarg("reasoning_effort"), named ? QString("\"low\"") : QString("\"medium\""));
    QCOMPARE(kwarg("custom"), named ? QString("{\"a\":[1,2]}") : QString("(none)"));
}

void TestModelSettings::generationJsonReadsStoredFormat()
{
    // Chats store this JSON (ChatStore's settings column): the key names are a file format.
    const QByteArray stored = R"({"temperature":0.6,"topK":20,"topP":0.95,"minP":0,"repeatPenalty":1.05,
        "presencePenalty":1.5,"seed":1234,"maxTokens":2048,"enableThinking":false,
        "templateKwargs":{"reasoning_effort":"\"high\""}})";
    GenerationOptions g;
    generationFromJson(QJsonDocument::fromJson(stored).object(), g);
    QCOMPARE(g.sampling.temperature, 0.6f);
    QCOMPARE(g.sampling.topK, 20);
    QCOMPARE(g.sampling.topP, 0.95f);
    QCOMPARE(g.sampling.minP, 0.0f);
    QCOMPARE(g.sampling.repeatPenalty, 1.05f);
    QCOMPARE(g.sampling.presencePenalty, 1.5f);
    QCOMPARE(g.sampling.seed, 1234u);
    QCOMPARE(g.maxTokens, 2048);
    QCOMPARE(g.enableThinking, false);
    QCOMPARE(g.templateKwargs.at("reasoning_effort"), std::string("\"high\""));
    // And writing gives the same names back.
    QCOMPARE(generationToJson(g).keys(), QJsonDocument::fromJson(stored).object().keys());
}

// The file `shoehorn-cli serve --models-preset` serves: a relative model path is beside the file.
void TestModelSettings::importedFileFindsRelativeModelsBesideIt()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ini = dir.filePath("presets/models.ini");
    QVERIFY(QDir().mkpath(dir.filePath("presets")));
    QFile f(ini);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("version = 1\n[*]\nc = 1024\n\n[second]\nmodel = ../second.gguf\nctx-size = 512\ntop-k = 7\n\n"
            "[tiny]\nmodel = /abs/tiny.gguf\ntemp = 0.3\n");
    f.close();
    const PresetImport imported = PresetImport::fromFile(ini, ModelSettings{});
    QCOMPARE(imported.error.code, shoehorn::ErrorCode::None);
    QVERIFY2(imported.issues.isEmpty(), qPrintable(imported.issues.value(0).message));
    QCOMPARE(imported.models, QStringList({dir.filePath("second.gguf"), "/abs/tiny.gguf"}));
    const ModelSettings second = ModelSettingsStore::load(dir.filePath("second.gguf")).value();
    QCOMPARE(second.context.contextSize, 512u);
    QCOMPARE(second.generation.sampling.topK, 7);
}

void TestModelSettings::importPresets()
{
    auto file = parsePresetIni(seedPreset("/models/我的模型/coder 30b.gguf", "[no-model-here]\nc = 4096\n"));
    QVERIFY(file.ok());
    QCOMPARE(file->models.size(), size_t(3));
    ModelSettings base; // what the user had: kept where the preset says nothing
    base.context.threads = 3;
    base.context.ubatchSize = 256;
    base.generation.maxTokens = 1000;
    base.locks.kvType = true;
    const QString qwen = "/home/acai/workspace/llm_models/Qwen3.5-35B-A3B/Qwen3.5-35B-A3B-UD-Q2_K_XL.gguf";
    const QString coder = "/models/我的模型/coder 30b.gguf";
    const QStringList written = ModelSettingsStore::importPresets(*file, base);
    QCOMPARE(written, QStringList({qwen, coder})); // the section without a model is skipped
    AppSettings::waitForWrites(); // the store writes in the background
    QCOMPARE(QSettings().allKeys().size(), 2);

    const ModelSettings q = ModelSettingsStore::load(qwen).value();
    ModelSettings expectQ = base;
    expectQ.context.contextSize = 102400; // the section overrides [*]
    expectQ.context.batchSize = 512;      // from [*]
    expectQ.context.flashAttention = FlashAttention::On;
    expectQ.generation.sampling.temperature = 1.0f;
    expectQ.generation.sampling.topP = 0.95f;
    expectQ.generation.sampling.topK = 20;
    expectQ.generation.sampling.minP = 0.0f;
    expectQ.generation.sampling.presencePenalty = 1.5f;
    expectQ.generation.sampling.repeatPenalty = 1.0f;
    QCOMPARE(describe(q), describe(expectQ));

    const ModelSettings c = ModelSettingsStore::load(coder).value();
    ModelSettings expectC = base;
    expectC.context.contextSize = 32768;
    expectC.context.batchSize = 512;
    expectC.context.flashAttention = FlashAttention::On;
    expectC.context.typeK = "q8_0";
    expectC.context.typeV = "q8_0";
    expectC.load.cpuMoeLayers = 20;
    expectC.load.gpuLayers = 99;
    expectC.generation.sampling.temperature = 0.6f;
    expectC.generation.enableThinking = false;
    expectC.generation.templateKwargs = {{"reasoning_effort", "\"low\""}};
    QCOMPARE(describe(c), describe(expectC));
}

void TestModelSettings::templateArgumentsDoNotCarryOver()
{
    // One model's template arguments, then another model's stored settings are read over them.
    shoehorn::GenerationOptions g;
    g.templateKwargs = {{"reasoning_effort", "\"low\""}};
    generationFromJson(QJsonObject{{"templateKwargs", QJsonObject{{"enable_x", "true"}}}}, g);
    QCOMPARE(g.templateKwargs.size(), size_t(1));
    QCOMPARE(QString::fromStdString(g.templateKwargs.at("enable_x")), QString("true"));
    generationFromJson(QJsonObject{{"templateKwargs", QJsonObject{}}}, g);
    QVERIFY(g.templateKwargs.empty());
    // An entry written before template arguments were stored leaves them as they are.
    g.templateKwargs = {{"reasoning_effort", "\"low\""}};
    generationFromJson(QJsonObject{{"temperature", 0.5}}, g);
    QCOMPARE(g.templateKwargs.size(), size_t(1));
}

QTEST_GUILESS_MAIN(TestModelSettings)
#include "tst_modelsettings.moc"
