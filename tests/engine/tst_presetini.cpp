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
