// validate(): the settings llama.cpp refuses (or misreads) are refused before anything loads,
// with a sentence that names the flag; contextWarning(): what llama.cpp does with a context
// above the trained length.
#include "validate.h"

#include <QtTest>

#include <functional>

using namespace shoehorn;

using Change = std::function<void(PlanSettings &)>;
Q_DECLARE_METATYPE(Change)

class TestValidate : public QObject
{
    Q_OBJECT
private slots:
    void settings_data();
    void settings();
    void headsTakeTheKvType_data();
    void headsTakeTheKvType();
    void allowedTypeV_data();
    void allowedTypeV();
    void contextWarning_data();
    void contextWarning();
    void threadsWarning_data();
    void threadsWarning();
};

void TestValidate::settings_data()
{
    QTest::addColumn<Change>("change");
    QTest::addColumn<QString>("message"); // empty: accepted
    auto row = [](const char *name, Change c, const char *message) { QTest::newRow(name) << c << QString(message); };
    const auto fa = [](FlashAttention f, const char *k, const char *v) {
        return Change([=](PlanSettings &s) {
            s.context.flashAttention = f;
            s.context.typeK = k;
            s.context.typeV = v;
        });
    };
    const char *needsFa = "-ctv q8_0 needs flash attention (-fa on or auto); llama.cpp refuses a quantized V cache "
                          "without it";
    row("defaults", [](PlanSettings &) {}, "");
    row("fa off, q8_0 K and V", fa(FlashAttention::Off, "q8_0", "q8_0"), needsFa);
    row("fa off, f16 K, q8_0 V", fa(FlashAttention::Off, "f16", "q8_0"), needsFa);
    row("fa off, q4_0 V", fa(FlashAttention::Off, "f16", "q4_0"), "-ctv q4_0 needs flash attention");
    row("fa off, q8_0 K, f16 V", fa(FlashAttention::Off, "q8_0", "f16"), "");
    row("fa off, bf16 V", fa(FlashAttention::Off, "f16", "bf16"), "");
    row("fa on, q8_0 K and V", fa(FlashAttention::On, "q8_0", "q8_0"), "");
    row("fa auto, q8_0 K and V", fa(FlashAttention::Auto, "q8_0", "q8_0"), "");
    row("unknown K", fa(FlashAttention::On, "q9", "f16"), "-ctk takes f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, "
                                                          "q5_0, q5_1, not 'q9'");
    row("unknown V", fa(FlashAttention::On, "f16", ""), "-ctv takes f32, f16");
    row("ngl -1 (all)", [](PlanSettings &s) { s.load.gpuLayers = -1; }, "");
    row("ngl 999", [](PlanSettings &s) { s.load.gpuLayers = 999; }, "");
    row("ngl -5", [](PlanSettings &s) { s.load.gpuLayers = -5; }, "-ngl must be from -1 to 2147483647");
    row("n-cpu-moe -3", [](PlanSettings &s) { s.load.cpuMoeLayers = -3; }, "--n-cpu-moe must be from 0");
    row("main gpu -1", [](PlanSettings &s) { s.load.mainGpu = -1; }, "-mg must be from 0 to 255");
    row("context 1", [](PlanSettings &s) { s.context.contextSize = 1; },
        "-c 1 leaves no room for a prompt: give 0 (the model's trained context) or at least 2 tokens");
    row("context 0 (trained)", [](PlanSettings &s) { s.context.contextSize = 0; }, "");
    row("context 2", [](PlanSettings &s) { s.context.contextSize = 2; }, "");
    row("parallel 0", [](PlanSettings &s) { s.parallel = 0; }, "-np must be from 1 to 256, not 0");
    row("parallel 257", [](PlanSettings &s) { s.parallel = 257; }, "-np must be from 1 to 256, not 257");
    row("batch 0", [](PlanSettings &s) { s.context.batchSize = 0; }, "-b must be from 1");
    row("ubatch 0", [](PlanSettings &s) { s.context.ubatchSize = 0; }, "-ub must be from 1");
    row("threads -2", [](PlanSettings &s) { s.context.threads = -2; }, "-t must be from 0 to 512");
    row("threads 513", [](PlanSettings &s) { s.context.threads = 513; }, "-t must be from 0 to 512");
    row("batch threads -1", [](PlanSettings &s) { s.context.threadsBatch = -1; }, "-tb must be from 0 to 512");
    row("context 0 (trained)", [](PlanSettings &s) { s.context.contextSize = 0; }, "");
}

void TestValidate::settings()
{
    QFETCH(Change, change);
    QFETCH(QString, message);
    PlanSettings s;
    change(s);
    const Error e = validate(s);
    if (message.isEmpty()) {
        QVERIFY2(!e, e.detail.c_str());
        return;
    }
    QCOMPARE(e.code, ErrorCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(e.detail).startsWith(message), e.detail.c_str());
    // The context part alone says the same (ChatSession::create and the benchmark use it).
    if (s.load == LoadSettings{} && s.parallel == 1)
        QCOMPARE(validate(s.context).detail, e.detail);
}

// llama.cpp refuses a quantized KV cache whose block (32 values) does not divide the head size.
void TestValidate::headsTakeTheKvType_data()
{
    QTest::addColumn<int>("headK");
    QTest::addColumn<int>("headV");
    QTest::addColumn<QString>("typeK");
    QTest::addColumn<QString>("typeV");
    QTest::addColumn<QString>("message"); // empty: accepted
    QTest::newRow("head 128, q8_0") << 128 << 128 << "q8_0" << "q8_0" << "";
    QTest::newRow("head 16, f16") << 16 << 16 << "f16" << "f16" << "";
    QTest::newRow("head 16, bf16/f32") << 16 << 16 << "bf16" << "f32" << "";
    QTest::newRow("head 16, q8_0 K")
        << 16 << 16 << "q8_0" << "f16"
        << "-ctk q8_0 stores blocks of 32 values, so it needs a head size that is a multiple of 32; this model's K "
           "head size is 16 (llama.cpp refuses the context). Use f16 for the KV cache (-ctk f16 -ctv f16).";
    QTest::newRow("head V 80, q4_0 V") << 128 << 80 << "f16" << "q4_0"
                                       << "-ctv q4_0 stores blocks of 32 values, so it needs a head size that is a "
                                          "multiple of 32; this model's V head size is 80";
    QTest::newRow("head unknown (0)") << 0 << 0 << "q8_0" << "q8_0" << "";
}

void TestValidate::headsTakeTheKvType()
{
    QFETCH(int, headK);
    QFETCH(int, headV);
    QFETCH(QString, typeK);
    QFETCH(QString, typeV);
    QFETCH(QString, message);
    ModelInfo m;
    m.headSizeK = uint32_t(headK);
    m.headSizeV = uint32_t(headV);
    ContextSettings c;
    c.typeK = typeK.toStdString();
    c.typeV = typeV.toStdString();
    c.flashAttention = FlashAttention::On;
    const Error e = validate(m, c);
    if (message.isEmpty()) {
        QVERIFY2(!e, e.detail.c_str());
        return;
    }
    QCOMPARE(e.code, ErrorCode::InvalidArgument);
    QVERIFY2(QString::fromStdString(e.detail).startsWith(message), e.detail.c_str());
}

void TestValidate::allowedTypeV_data()
{
    QTest::addColumn<QString>("wanted");
    QTest::addColumn<int>("fa");
    QTest::addColumn<QString>("allowed");
    QTest::newRow("q8_0, fa off") << "q8_0" << int(FlashAttention::Off) << "f16";
    QTest::newRow("q4_0, fa off") << "q4_0" << int(FlashAttention::Off) << "f16";
    QTest::newRow("bf16, fa off") << "bf16" << int(FlashAttention::Off) << "bf16";
    QTest::newRow("q8_0, fa on") << "q8_0" << int(FlashAttention::On) << "q8_0";
    QTest::newRow("q8_0, fa auto") << "q8_0" << int(FlashAttention::Auto) << "q8_0";
}

void TestValidate::allowedTypeV()
{
    QFETCH(QString, wanted);
    QFETCH(int, fa);
    QFETCH(QString, allowed);
    QCOMPARE(QString::fromStdString(shoehorn::allowedTypeV(wanted.toStdString(), FlashAttention(fa))), allowed);
}

void TestValidate::contextWarning_data()
{
    QTest::addColumn<uint>("trained");
    QTest::addColumn<uint>("context");
    QTest::addColumn<QString>("warning"); // empty: none
    QTest::newRow("within") << 2048u << 2048u << "";
    QTest::newRow("trained length (0)") << 2048u << 0u << "";
    QTest::newRow("unknown trained length") << 0u << 8192u << "";
    QTest::newRow("above") << 2048u << 8192u
                           << "-c 8192 is above the model's trained context of 2048 tokens: llama.cpp's server gives "
                              "a conversation at most 2048 of them (the KV cache above that is allocated and unused); "
                              "the Shoehorn app caps the context at 2048.";
}

void TestValidate::contextWarning()
{
    QFETCH(uint, trained);
    QFETCH(uint, context);
    QFETCH(QString, warning);
    ModelInfo m;
    m.contextLength = trained;
    QCOMPARE(QString::fromStdString(shoehorn::contextWarning(m, context)), warning);
}

void TestValidate::threadsWarning_data()
{
    QTest::addColumn<int>("threads");
    QTest::addColumn<int>("batch");
    QTest::addColumn<uint>("cpu");
    QTest::addColumn<QString>("warning"); // its start; empty: none
    QTest::newRow("auto") << 0 << 0 << 2u << "";
    QTest::newRow("as many as the CPU runs") << 2 << 2 << 2u << "";
    QTest::newRow("-t above") << 4 << 0 << 2u << "-t 4 is more than the 2 CPU threads this process may use at once";
    QTest::newRow("-tb above") << 2 << 16 << 8u << "-tb 16 is more than the 8 CPU threads";
    QTest::newRow("one CPU") << 2 << 0 << 1u << "-t 2 is more than the 1 CPU thread this process";
    QTest::newRow("unknown CPU") << 64 << 64 << 0u << "";
}

void TestValidate::threadsWarning()
{
    QFETCH(int, threads);
    QFETCH(int, batch);
    QFETCH(uint, cpu);
    QFETCH(QString, warning);
    ContextSettings c;
    c.threads = threads;
    c.threadsBatch = batch;
    const QString w = QString::fromStdString(shoehorn::threadsWarning(c, cpu));
    QVERIFY2(warning.isEmpty() ? w.isEmpty() : w.startsWith(warning), qPrintable(w));
}

QTEST_GUILESS_MAIN(TestValidate)
#include "tst_validate.moc"
