// The settings and files that reached a GGML_ASSERT in llama.cpp's server loop (#30,
// docs/hostile-files.md section 6): refused with a sentence before the loop starts, or answered.
#include "chatsession.h"
#include "model.h"
#include "testfixtures.h"
#include "testsessions.h"

#include <QtTest>

using namespace shoehorn;

namespace {
using testsessions::load;

GenerationOptions seeded(int maxTokens)
{
    GenerationOptions o;
    o.maxTokens = maxTokens;
    o.sampling.seed = 7;
    return o;
}
} // namespace

class TestLoopGuards : public QObject
{
    Q_OBJECT
private slots:
    void settingsThatAbortedTheLoop_data();
    void settingsThatAbortedTheLoop();
};

// Settings that reached a GGML_ASSERT in llama.cpp's server loop (#30): each is refused with a
// sentence before the loop starts, or runs. (A trained context of 0 is refused by the inspector:
// tst_modelchecks, "trained context of 0".)
void TestLoopGuards::settingsThatAbortedTheLoop_data()
{
    QTest::addColumn<uint32_t>("context");
    QTest::addColumn<uint32_t>("ubatch");
    QTest::addColumn<int>("apiSlots");
    QTest::addColumn<int>("promptWords");
    QTest::addColumn<int>("maxTokens");
    QTest::addColumn<QString>("refused"); // empty: it answers
    // A 1-token batch could not hold the two tokens the server decodes when it starts.
    QTest::newRow("-c 1") << 1u << 512u << 0 << 4 << 4 << "-c 1 leaves no room for a prompt";
    QTest::newRow("-c 2") << 2u << 512u << 0 << 4 << 4 << "";
    QTest::newRow("-ub 1") << 2048u << 1u << 0 << 4 << 4 << "";
    QTest::newRow("-ub larger than -c") << 256u << 2048u << 0 << 4 << 4 << "";
    QTest::newRow("more slots than context cells") << 256u << 512u << 255 << 4 << 4 << "";
    // llama.cpp's "exceeds the context" error asserts a positive context and prompt: both hold.
    // -n 0 (a preset or the API's max_tokens): llama-server's answer, one token.
    QTest::newRow("-n 0") << 2048u << 512u << 0 << 4 << 0 << "";
    QTest::newRow("prompt longer than the context") << 256u << 512u << 0 << 400 << 4 << "needs";
}

void TestLoopGuards::settingsThatAbortedTheLoop()
{
    QFETCH(uint32_t, context);
    QFETCH(uint32_t, ubatch);
    QFETCH(int, apiSlots);
    QFETCH(int, promptWords);
    QFETCH(int, maxTokens);
    QFETCH(QString, refused);
    auto model = load(TestFixtures::instance().tinyMoe());
    ContextSettings cs;
    cs.contextSize = context;
    cs.ubatchSize = ubatch;
    cs.threads = 2;
    ApiSlotSettings api;
    api.count = apiSlots;
    auto s = ChatSession::create(model, cs, api);
    if (!s.ok()) {
        QVERIFY2(!refused.isEmpty() && QString::fromStdString(s.error().detail).contains(refused),
                 s.error().detail.c_str());
        QCOMPARE(s.error().code, ErrorCode::InvalidArgument);
        return;
    }
    std::string prompt;
    for (int i = 0; i < promptWords; ++i)
        prompt += "hello ";
    auto r = (*s)->generate({{"user", prompt, {}}}, seeded(maxTokens));
    if (refused.isEmpty()) {
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
        QVERIFY(r->stats.generatedTokens > 0);
    } else {
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error().detail).contains(refused), r.error().detail.c_str());
    }
}

QTEST_GUILESS_MAIN(TestLoopGuards)
#include "tst_loopguards.moc"
