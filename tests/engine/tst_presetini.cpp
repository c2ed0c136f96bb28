// Importing llama-server --models-preset INI files, like the one in our users' guide.
#include "presetini.h"
#include "seedpreset.h"

#include <QtTest>

using namespace shoehorn;

class TestPresetIni : public QObject
{
    Q_OBJECT
private slots:
    void seedPreset();
    void appliesToSettings();
    void speculationKeys();
    void badValuesAreReported_data();
    void badValuesAreReported();
    void notAPresetFile();
};

void TestPresetIni::seedPreset()
{
    auto r = parsePresetIni(::seedPreset());
    QVERIFY(r.ok());
    QCOMPARE(r->version, 1);
    QCOMPARE(r->models.size(), size_t(2));
    const ModelPreset &q = r->models[0];
    QCOMPARE(QString::fromStdString(q.name), QString("Qwen3.5-35B-A3B"));
    QCOMPARE(QString::fromStdString(*q.model),
             QString("/home/acai/workspace/llm_models/Qwen3.5-35B-A3B/Qwen3.5-35B-A3B-UD-Q2_K_XL.gguf"));
    QVERIFY(q.mmproj.has_value());
    QCOMPARE(*q.loadOnStartup, true);
    QCOMPARE(*q.contextSize, 102400u);           // the section overrides [*]
    QCOMPARE(*q.batchSize, 512u);                // from [*]
    QCOMPARE(*q.flashAttention, FlashAttention::On);
    QCOMPARE(*q.typeK, std::string("f16"));
    QCOMPARE(*q.temperature, 1.0f);
    QCOMPARE(*q.topK, 20);
    QCOMPARE(*q.presencePenalty, 1.5f);
    QVERIFY(q.templateKwargs.empty());           // commented out
    const ModelPreset &c = r->models[1];
    QCOMPARE(*c.contextSize, 32768u);            // inherited
    QCOMPARE(*c.cpuMoeLayers, 20);
    QCOMPARE(*c.typeV, std::string("q8_0"));
    QCOMPARE(c.templateKwargs.at("enable_thinking"), std::string("false"));
    // context-shift has no Shoehorn equivalent: reported with its line, not dropped silently.
    QCOMPARE(r->issues.size(), size_t(1));
    QCOMPARE(QString::fromStdString(r->issues[0].key), QString("context-shift"));
    QCOMPARE(r->issues[0].line, 8);
    QCOMPARE(QString::fromStdString(r->issues[0].section), QString("*"));
}

void TestPresetIni::appliesToSettings()
{
    auto r = parsePresetIni(::seedPreset());
    QVERIFY(r.ok());
    LoadSettings load;
    ContextSettings ctx;
    GenerationOptions gen;
    r->models[1].applyTo(load, ctx, gen);
    QCOMPARE(load.gpuLayers, 99);
    QCOMPARE(load.cpuMoeLayers, 20);
    QCOMPARE(ctx.contextSize, 32768u);
    QCOMPARE(ctx.typeK, std::string("q8_0"));
    QCOMPARE(gen.sampling.temperature, 0.6f);
    QCOMPARE(gen.enableThinking, false);
    QCOMPARE(gen.templateKwargs.at("reasoning_effort"), std::string("\"low\""));
    QCOMPARE(ctx.ubatchSize, ContextSettings{}.ubatchSize); // untouched
}

// llama-server's speculation keys (#29) mean what they mean there.
void TestPresetIni::speculationKeys()
{
    auto r = parsePresetIni("[mtp]\nmodel = /q35.gguf\nspec-type = draft-mtp\nspec-draft-n-max = 2\n"
                            "[draft]\nmodel = /q3.gguf\nmodel-draft = /q3-0.6b.gguf\ndraft-min = 1\n"
                            "[ngram]\nmodel = /l.gguf\nspec-type = ngram-simple\nspec-ngram-simple-size-n = 3\n");
    QVERIFY(r.ok());
    QVERIFY2(r->issues.empty(), r->issues.empty() ? "" : r->issues[0].message.c_str());
    QCOMPARE(r->models.size(), size_t(3));
    LoadSettings load;
    ContextSettings ctx;
    GenerationOptions gen;
    r->models[0].applyTo(load, ctx, gen);
    QCOMPARE(ctx.speculation.types, std::string("draft-mtp"));
    QCOMPARE(ctx.speculation.draftMax, 2);
    QVERIFY(load.mtpLayers); // the MTP layers load for it
    LoadSettings load2;
    ContextSettings ctx2;
    r->models[1].applyTo(load2, ctx2, gen);
    QCOMPARE(ctx2.speculation.draftModel, std::string("/q3-0.6b.gguf"));
    QCOMPARE(ctx2.speculation.draftMin, 1);
    QCOMPARE(ctx2.speculation.running(), std::string("draft-simple"));
    QVERIFY(!load2.mtpLayers);
    ContextSettings ctx3;
    r->models[2].applyTo(load2, ctx3, gen);
    QCOMPARE(ctx3.speculation.types, std::string("ngram-simple"));
    QCOMPARE(ctx3.speculation.ngramSizeN, 3);
    // llama-server's --device (dev): the GPUs the model uses.
    auto d = parsePresetIni("[*]\ndevice = none\n[v]\nmodel = /v.gguf\ndev = Vulkan0,CUDA1\n[c]\nmodel = /c.gguf\n");
    QVERIFY(d.ok());
    QVERIFY(d->issues.empty());
    LoadSettings dv, dc;
    d->models[0].applyTo(dv, ctx3, gen);
    d->models[1].applyTo(dc, ctx3, gen);
    QCOMPARE(dv.devices, (std::vector<std::string>{"Vulkan0", "CUDA1"}));
    QCOMPARE(dc.devices, std::vector<std::string>{"none"}); // from [*]
}

void TestPresetIni::badValuesAreReported_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("number") << "c = lots" << "not a number";
    QTest::newRow("kv type") << "ctk = q3_weird" << "unknown KV cache type";
    QTest::newRow("flash") << "flash-attn = maybe" << "flash-attn takes";
    QTest::newRow("kwargs") << "chat-template-kwargs = {oops" << "JSON";
    QTest::newRow("no equals") << "just words" << "not a key = value";
    QTest::newRow("unknown") << "spec-draft-max = 4" << "unknown key";
    QTest::newRow("speculation type") << "spec-type = draft-psychic" << "--spec-type takes";
    QTest::newRow("draft length") << "spec-draft-n-max = many" << "not a number";
    QTest::newRow("device list") << "device = CUDA0,,Vulkan0" << "device takes device names";
}

void TestPresetIni::badValuesAreReported()
{
    QFETCH(QString, line);
    QFETCH(QString, message);
    auto r = parsePresetIni("[m]\nmodel = /a.gguf\n" + line.toStdString() + "\n");
    QVERIFY(r.ok());
    QCOMPARE(r->issues.size(), size_t(1));
    QCOMPARE(r->issues[0].line, 3);
    QVERIFY2(QString::fromStdString(r->issues[0].message).contains(message), r->issues[0].message.c_str());
    QCOMPARE(*r->models[0].model, std::string("/a.gguf"));
}

void TestPresetIni::notAPresetFile()
{
    QVERIFY(!parsePresetIni("hello\nworld\n").ok());
    QVERIFY(!parsePresetIni("[broken\nx=1\n").ok());
}

QTEST_GUILESS_MAIN(TestPresetIni)
#include "tst_presetini.moc"
