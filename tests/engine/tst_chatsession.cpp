// Chat sessions on the tiny fixtures: determinism, streaming, stop/cancel, KV reuse, trimming.
#include "chatsession.h"
#include "serverargs.h"
#include "decodeseam.h"
#include "llamahandles.h" // the llama.cpp context
#include "testfixtures.h"
#include "testsessions.h"

#include <QtTest>

#include <chrono>
#include <thread>

using namespace shoehorn;

namespace {
bool validUtf8(std::string_view s)
{
    const QByteArray b(s.data(), qsizetype(s.size()));
    return QString::fromUtf8(b).toUtf8() == b;
}

using testsessions::load;
using testsessions::session;

GenerationOptions seeded(int maxTokens, uint32_t seed = 7)
{
    GenerationOptions o;
    o.maxTokens = maxTokens;
    o.sampling.seed = seed;
    return o;
}
} // namespace

class TestChatSession : public QObject
{
    Q_OBJECT
private slots:
    void deterministic_data();
    void deterministic();
    void deltasAreCompleteUtf8();
    void stopMidAnswer();
    void cancelBeforeFirstToken();
    void maxTokensAndStats();
    void stopString();
    void kvReuseSecondTurn();
    void editedHistoryReusesPrefix();
    void overflowTrimsOldestMessages();
    void singleMessageTooLong();
    void chatTemplateApplied();
    void unreadableTemplateFallsBackToChatMl();
    void thinkingKeptApart_data();
    void thinkingKeptApart();
    void decodeResults_data();
    void decodeResults();
    void decodeFailureCarriesLlamaReason();
    void decodeOutOfMemory();
    void promptProgressPerMicroBatch();
    void stopDuringASilentDecode();
};

void TestChatSession::deterministic_data()
{
    QTest::addColumn<QString>("path");
    QTest::newRow("llama") << TestFixtures::instance().tinyLlama();
    QTest::newRow("qwen3moe") << TestFixtures::instance().tinyMoe();
}

void TestChatSession::deterministic()
{
    QFETCH(QString, path);
    auto model = load(path);
    const std::vector<ChatMessage> h{{"user", "Hello, how are you?", {}}};
    auto a = session(model)->generate(h, seeded(48));
    auto b = session(model)->generate(h, seeded(48));
    auto c = session(model)->generate(h, seeded(48, 99));
    QVERIFY(a.ok() && b.ok() && c.ok());
    QVERIFY(a->stats.generatedTokens > 0);
    QVERIFY(!a->content.empty());
    QCOMPARE(QString::fromStdString(a->content), QString::fromStdString(b->content));
    QVERIFY(a->content != c->content);
    qInfo("seed 7: %s", a->content.c_str());
}

void TestChatSession::deltasAreCompleteUtf8()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model);
    std::string joined;
    int deltas = 0;
    StreamCallbacks cb;
    cb.onDelta = [&](std::string_view c, std::string_view r) {
        QVERIFY(validUtf8(c));
        QVERIFY(validUtf8(r));
        joined += c;
        ++deltas;
    };
    // Several seeds: the tiny vocabulary has byte tokens and multi-byte pieces (你, 🚀). Random
    // weights sample lone high bytes (<0x80>..<0xFF>): invalid UTF-8, on which llama-server's
    // parser fails a request with 500. The desktop chat shows such an answer (U+FFFD in place
    // of the bad bytes) instead of failing it.
    int replaced = 0;
    for (uint32_t seed = 1; seed <= 6; ++seed) {
        joined.clear();
        s->clearCache();
        auto r = s->generate({{"user", "写一段中文 🚀", {}}}, seeded(120, seed), cb);
        QVERIFY(r.ok());
        QCOMPARE(QString::fromStdString(joined), QString::fromStdString(r->content));
        QVERIFY(validUtf8(r->content));
        replaced += r->content.find("\xEF\xBF\xBD") != std::string::npos;
    }
    QVERIFY(deltas > 100);
    QVERIFY2(replaced > 0, "no seed sampled invalid UTF-8: the case is not exercised");
}

void TestChatSession::stopMidAnswer()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model);
    std::atomic<bool> cancel{false};
    int deltas = 0;
    StreamCallbacks cb;
    cb.onDelta = [&](std::string_view, std::string_view) {
        if (++deltas == 5)
            cancel = true;
    };
    auto r = s->generate({{"user", "Tell me a long story", {}}}, seeded(500), cb, &cancel);
    QVERIFY(r.ok());
    QCOMPARE(r->stats.stopReason, StopReason::Cancelled);
    QVERIFY(r->stats.generatedTokens >= 5 && r->stats.generatedTokens < 10);
    QVERIFY(!r->content.empty());
    // The rate of what was written before Stop, as a finished answer counts it.
    QVERIFY(r->stats.generationMs > 0);
    QCOMPARE(r->stats.generationTokensPerSecond, (r->stats.generatedTokens - 1) * 1000.0 / r->stats.generationMs);
    // The session stays usable after a stop.
    cancel = false;
    auto again = s->generate({{"user", "Again", {}}}, seeded(10));
    QVERIFY(again.ok());
    QVERIFY(again->stats.stopReason == StopReason::MaxTokens || again->stats.stopReason == StopReason::EndOfGeneration);
}

void TestChatSession::cancelBeforeFirstToken()
{
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    std::atomic<bool> cancel{true};
    auto r = s->generate({{"user", "Hi", {}}}, seeded(50), {}, &cancel);
    QVERIFY(r.ok());
    QCOMPARE(r->stats.stopReason, StopReason::Cancelled);
    QCOMPARE(r->stats.generatedTokens, 0);
}

void TestChatSession::maxTokensAndStats()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model);
    int prefillCalls = 0;
    StreamCallbacks cb;
    cb.onPrefill = [&](int done, int total) {
        ++prefillCalls;
        QVERIFY(done <= total);
    };
    auto r = s->generate({{"system", "Be brief.", {}}, {"user", "Count to ten", {}}}, seeded(30), cb);
    QVERIFY(r.ok());
    const auto &st = r->stats;
    QVERIFY(st.stopReason == StopReason::MaxTokens || st.stopReason == StopReason::EndOfGeneration);
    QVERIFY(st.generatedTokens <= 30);
    QVERIFY(st.promptTokens > 10);
    QCOMPARE(st.promptEvaluated, st.promptTokens);
    QCOMPARE(st.reusedTokens, 0);
    QVERIFY(st.promptTokensPerSecond > 0);
    QVERIFY(st.generationTokensPerSecond > 0);
    QVERIFY(st.timeToFirstTokenMs > 0);
    // The last sampled token ended the answer without being decoded.
    QCOMPARE(st.contextUsed, st.promptTokens + st.generatedTokens - (st.stopReason == StopReason::MaxTokens ? 1 : 0));
    QCOMPARE(s->cachedTokens(), st.contextUsed);
    QCOMPARE(st.contextSize, 2048);
    QVERIFY(prefillCalls >= 1);
}

void TestChatSession::stopString()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    // Find a piece of text the model produces with this seed, then stop on it.
    auto probe = session(model)->generate({{"user", "Hi", {}}}, seeded(60));
    QVERIFY(probe.ok());
    const std::string text = probe->content;
    QVERIFY(text.size() > 12);
    const std::string stop = text.substr(8, 3);
    auto o = seeded(60);
    o.stop = {stop};
    auto r = session(model)->generate({{"user", "Hi", {}}}, o);
    QVERIFY(r.ok());
    QCOMPARE(r->stats.stopReason, StopReason::StopString);
    QCOMPARE(QString::fromStdString(r->content), QString::fromStdString(text.substr(0, text.find(stop))));
}

void TestChatSession::kvReuseSecondTurn()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model);
    std::vector<ChatMessage> h{{"system", "You are helpful.", {}}, {"user", "First question?", {}}};
    auto t1 = s->generate(h, seeded(40));
    QVERIFY(t1.ok());
    const int cachedAfterTurn1 = t1->stats.contextUsed;
    h.push_back({"assistant", t1->content, {}});
    h.push_back({"user", "Second question?", {}});
    auto t2 = s->generate(h, seeded(20));
    QVERIFY(t2.ok());
    const auto &st = t2->stats;
    qInfo("turn 2: prompt %d tokens, reused %d, evaluated %d (turn 1 left %d in the cache)", st.promptTokens,
          st.reusedTokens, st.promptEvaluated, cachedAfterTurn1);
    // Everything from turn one is reused: the prompt and the answer's own tokens.
    QCOMPARE(st.reusedTokens, cachedAfterTurn1);
    QCOMPARE(st.promptEvaluated, st.promptTokens - cachedAfterTurn1);
    // Only the new message and the template's glue are decoded, not the first prompt again.
    QVERIFY(st.promptEvaluated < t1->stats.promptTokens);
    // The result equals a fresh session given the same history (the cache changes nothing).
    auto fresh = session(model)->generate(h, seeded(20));
    QVERIFY(fresh.ok());
    QCOMPARE(fresh->stats.reusedTokens, 0);
}

void TestChatSession::editedHistoryReusesPrefix()
{
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    std::vector<ChatMessage> h{{"system", "You are helpful.", {}}, {"user", "Original question", {}}};
    QVERIFY(s->generate(h, seeded(20)).ok());
    // Edit the user message: the system prompt part of the cache is still reused.
    h.back().content = "Edited question";
    auto r = s->generate(h, seeded(20));
    QVERIFY(r.ok());
    QVERIFY(r->stats.reusedTokens > 3);
    QVERIFY(r->stats.reusedTokens < r->stats.promptTokens);
    // Regenerate the same prompt: all but one token is reused.
    auto again = s->generate(h, seeded(20, 5));
    QVERIFY(again.ok());
    QCOMPARE(again->stats.promptEvaluated, 1);
}

void TestChatSession::overflowTrimsOldestMessages()
{
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model, 256);
    std::vector<ChatMessage> h{{"system", "SYSTEM-PROMPT-KEPT", {}}};
    for (int i = 0; i < 12; ++i) {
        h.push_back({"user", "question number " + std::to_string(i) + " with some padding words here", {}});
        h.push_back({"assistant", "answer number " + std::to_string(i) + " with some padding words too", {}});
    }
    h.push_back({"user", "LAST-QUESTION", {}});
    auto r = s->generate(h, seeded(16));
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
    QVERIFY(r->stats.trimmedMessages > 0);
    QVERIFY(r->stats.trimmedMessages % 2 == 0); // whole question/answer pairs
    QVERIFY(r->stats.promptTokens + 16 <= 256);
    qInfo("trimmed %d of %zu messages to fit n_ctx 256", r->stats.trimmedMessages, h.size());
    // What was kept: the system prompt and the newest message.
    std::vector<ChatMessage> kept{h.front()};
    kept.insert(kept.end(), h.begin() + 1 + r->stats.trimmedMessages, h.end());
    auto prompt = s->formatPrompt(kept, seeded(16));
    QVERIFY(prompt.ok());
    QVERIFY(prompt->find("SYSTEM-PROMPT-KEPT") != std::string::npos);
    QVERIFY(prompt->find("LAST-QUESTION") != std::string::npos);
    // Keep chatting past the limit: still no crash, still trimmed.
    for (int turn = 0; turn < 3; ++turn) {
        h.push_back({"assistant", r->content, {}});
        h.push_back({"user", "more " + std::to_string(turn), {}});
        r = s->generate(h, seeded(16));
        QVERIFY(r.ok());
        QVERIFY(r->stats.trimmedMessages > 0);
    }
}

void TestChatSession::singleMessageTooLong()
{
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model, 128);
    std::string huge;
    for (int i = 0; i < 200; ++i)
        huge += "word ";
    auto r = s->generate({{"user", huge, {}}}, seeded(8));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::PromptTooLong);
    QVERIFY(s->generate({{"user", "short", {}}}, seeded(4)).ok());

    // A context above the model's trained one (2048): llama.cpp's server gives the slot 2048 of
    // it, and the message is measured against that, in Shoehorn's words (llama.cpp's own said
    // "exceeds the available context size (2048 tokens), try increasing it").
    auto wide = session(model, 4096);
    std::string longer;
    for (int i = 0; i < 600; ++i) // 3000 tokens: above the slot, below the KV cache
        longer += "word ";
    r = wide->generate({{"user", longer, {}}}, seeded(8));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::PromptTooLong);
    QVERIFY2(r.error().detail.find("the context holds 2048") != std::string::npos, r.error().detail.c_str());
    r = wide->generate({{"user", "short", {}}}, seeded(4));
    QVERIFY(r.ok());
    QCOMPARE(r->stats.contextSize, 2048);
}

void TestChatSession::chatTemplateApplied()
{
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    auto p = s->formatPrompt({{"system", "S", {}}, {"user", "U", {}}}, seeded(1));
    QVERIFY(p.ok());
    QCOMPARE(QString::fromStdString(*p),
             QString("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"));
}

// A template llama.cpp's Jinja engine cannot parse: the session starts, renders with ChatML and
// says why (the loop refused to start before: "llama.cpp could not create the context").
void TestChatSession::unreadableTemplateFallsBackToChatMl()
{
    auto model = load(TestFixtures::instance().withTemplate("broken-template.gguf", "{% if %}{{ messages }}"));
    auto s = ChatSession::create(model, ContextSettings{});
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().detail.c_str());
    QVERIFY2(!(*s)->templateFallback().empty(), "no reason given for ChatML");
    auto p = (*s)->formatPrompt({{"user", "U", {}}}, seeded(1));
    QVERIFY(p.ok());
    QCOMPARE(QString::fromStdString(*p), QString("<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n"));
    auto r = (*s)->generate({{"user", "hi", {}}}, seeded(4));
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
    QCOMPARE(r->stats.generatedTokens, 4);
    s->reset();
    // serve's --chat-template: the user's template is used, and nothing is said of ChatML.
    auto args = ServerArgs::parse({"--chat-template", "chatml"});
    QVERIFY(args.ok());
    ApiSlotSettings api;
    api.server = *args;
    auto given = ChatSession::create(model, ContextSettings{}, api);
    QVERIFY2(given.ok(), given.ok() ? "" : given.error().detail.c_str());
    QVERIFY2((*given)->templateFallback().empty(), (*given)->templateFallback().c_str());
}

void TestChatSession::thinkingKeptApart_data()
{
    QTest::addColumn<bool>("enableThinking");
    QTest::newRow("thinking on") << true;
    QTest::newRow("thinking off") << false;
}

void TestChatSession::thinkingKeptApart()
{
    // The template opens "<think>" in the generation prompt; everything the model writes
    // until "</think>" is reasoning. With enable_thinking=false the template closes the
    // block itself and everything is answer.
    QFETCH(bool, enableThinking);
    auto model = load(TestFixtures::instance().tinyThinking());
    auto s = session(model);
    QVERIFY(s->templateSupportsThinking());
    auto o = seeded(40);
    o.enableThinking = enableThinking;
    auto prompt = s->formatPrompt({{"user", "Think first", {}}}, o);
    QVERIFY(prompt.ok());
    QCOMPARE(QString::fromStdString(*prompt).endsWith("</think>\n\n"), !enableThinking);
    std::string streamedReasoning, streamedContent;
    StreamCallbacks cb;
    cb.onDelta = [&](std::string_view c, std::string_view r) {
        streamedContent += c;
        streamedReasoning += r;
    };
    auto r = s->generate({{"user", "Think first", {}}}, o, cb);
    QVERIFY(r.ok());
    QVERIFY(r->stats.generatedTokens > 0);
    QCOMPARE(streamedReasoning, r->reasoning);
    QCOMPARE(streamedContent, r->content);
    if (enableThinking) {
        QVERIFY(!r->reasoning.empty());
        // The random model may or may not close the block; what follows "</think>" is answer.
        QVERIFY(r->reasoning.find("</think>") == std::string::npos);
    } else {
        QVERIFY(r->reasoning.empty());
        QVERIFY(!r->content.empty());
    }
    // A later turn passes the earlier reasoning back; the template decides what to keep.
    std::vector<ChatMessage> h{{"user", "Think first", {}}, {"assistant", r->content, r->reasoning},
                               {"user", "And now?", {}}};
    QVERIFY(s->generate(h, o).ok());
}

void TestChatSession::decodeResults_data()
{
    // llama.h: llama_decode returns 0 on success, 1 when no KV cache slot was found, 2 when
    // aborted, -1 for an invalid batch and < -1 for a fatal error. The server loop retries a
    // positive result with a smaller batch (or after freeing an idle slot's cells) and ends the
    // answer with its error for the others; the turn then fails with that error.
    QTest::addColumn<bool>("inPrompt"); // the prompt's decode, or the second answer token's
    QTest::addColumn<int>("rc");
    QTest::addColumn<QString>("error"); // empty: the turn succeeds ...
    QTest::addColumn<StopReason>("stop"); // ... and stops for this reason
    const auto none = StopReason::None, max = StopReason::MaxTokens;
    QTest::newRow("prompt: 1 no slot, retried") << true << 1 << QString() << max;
    QTest::newRow("prompt: 2 aborted") << true << 2 << "aborted" << none;
    QTest::newRow("prompt: -1 invalid batch") << true << -1 << "Invalid input batch." << none;
    QTest::newRow("prompt: -2 fatal") << true << -2 << "Compute error." << none;
    QTest::newRow("prompt: -3 fatal") << true << -3 << "Compute error." << none;
    QTest::newRow("prompt: 3 undocumented, retried") << true << 3 << QString() << max;
    QTest::newRow("answer: 0 success") << false << 0 << QString() << max;
    QTest::newRow("answer: 1 no slot, retried") << false << 1 << QString() << max;
    QTest::newRow("answer: 2 aborted") << false << 2 << "aborted" << none;
    QTest::newRow("answer: -1 invalid batch") << false << -1 << "Invalid input batch." << none;
    QTest::newRow("answer: -2 fatal") << false << -2 << "Compute error." << none;
    QTest::newRow("answer: -100 fatal") << false << -100 << "Compute error." << none;
    QTest::newRow("answer: 7 undocumented, retried") << false << 7 << QString() << max;
}

void TestChatSession::decodeResults()
{
    QFETCH(bool, inPrompt);
    QFETCH(int, rc);
    QFETCH(QString, error);
    QFETCH(StopReason, stop);
    auto model = load(TestFixtures::instance().tinyMoe());
    auto s = session(model);
    const std::vector<ChatMessage> h{{"user", "Tell me a story", {}}};
    // Decode 1 is the prompt (one batch); decode 2 the first answer token, 3 the second.
    const int at = inPrompt ? 1 : 3;
    std::atomic<int> calls{0};
    std::optional<decodeseam::Scoped> seam;
    seam.emplace(internal::llamaContext(*s), [&](int) -> std::optional<int32_t> {
        if (++calls == at && rc != 0)
            return rc;
        return std::nullopt; // the real llama_decode
    });
    auto r = s->generate(h, seeded(8));
    QVERIFY2(calls >= at, "the answer ended before the decode under test");
    if (!error.isEmpty()) {
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::DecodeFailed);
        QVERIFY2(QString::fromStdString(r.error().detail).contains(error), r.error().detail.c_str());
    } else {
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
        QCOMPARE(r->stats.stopReason, stop);
        QCOMPARE(r->stats.generatedTokens, 8);
    }
    // Whatever happened, the cache stays consistent: the next turn equals a fresh session's.
    seam.reset();
    auto again = s->generate(h, seeded(8));
    auto fresh = session(model)->generate(h, seeded(8));
    QVERIFY(again.ok() && fresh.ok());
    QCOMPARE(QString::fromStdString(again->content), QString::fromStdString(fresh->content));
}

void TestChatSession::decodeFailureCarriesLlamaReason()
{
    // A real invalid batch (no tokens): the Error carries what llama.cpp logged about it.
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    std::atomic<int> calls{0};
    llama_context *ctx = internal::llamaContext(*s);
    decodeseam::Scoped seam(ctx, [&](int) -> std::optional<int32_t> {
        if (++calls < 2)
            return std::nullopt;
        llama_token token = 0;
        return decodeseam::real(ctx, llama_batch_get_one(&token, 0));
    });
    auto r = s->generate({{"user", "Hi", {}}}, seeded(8));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::DecodeFailed);
    QVERIFY2(r.error().detail.find("Invalid input batch.: ") == 0, r.error().detail.c_str());
    QVERIFY2(r.error().detail.find("n_tokens == 0") != std::string::npos, r.error().detail.c_str());
}

void TestChatSession::decodeOutOfMemory()
{
    // A fatal result after llama.cpp logged a failed allocation is OutOfMemory, which the
    // user can act on (fewer GPU layers, smaller context), with the log line as detail.
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    std::atomic<int> calls{0};
    decodeseam::Scoped seam(internal::llamaContext(*s), [&](int) -> std::optional<int32_t> {
        if (++calls < 2)
            return std::nullopt;
        ggml_log_callback log = nullptr;
        void *data = nullptr;
        llama_log_get(&log, &data); // llama.cpp's logger, as its own code would call it
        log(GGML_LOG_LEVEL_ERROR, "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 999\n",
            data);
        return -2;
    });
    auto r = s->generate({{"user", "Hi", {}}}, seeded(8));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::OutOfMemory);
    QVERIFY2(r.error().detail.find("Compute error.: ") == 0, r.error().detail.c_str());
    QVERIFY2(r.error().detail.find("failed to allocate buffer of size 999") != std::string::npos,
             r.error().detail.c_str());
}

void TestChatSession::promptProgressPerMicroBatch()
{
    // Progress from the start (0 of N before the first decode) and after every micro-batch,
    // so a long prompt shows movement within its first seconds and Stop is seen between them.
    auto model = load(TestFixtures::instance().tinyLlama());
    ContextSettings cs;
    cs.contextSize = 2048;
    cs.threads = 2;
    cs.batchSize = 2048;
    cs.ubatchSize = 64;
    auto s = ChatSession::create(model, cs);
    QVERIFY(s.ok());
    QList<QPair<int, int>> calls;
    StreamCallbacks cb;
    cb.onPrefill = [&](int done, int total) { calls.append({done, total}); };
    QString question;
    for (int i = 0; i < 60; ++i)
        question += QStringLiteral("word%1 ").arg(i);
    auto r = (*s)->generate({{"user", question.toStdString(), {}}}, seeded(1), cb);
    QVERIFY(r.ok());
    const int total = r->stats.promptEvaluated;
    QVERIFY2(total > 3 * 64, qPrintable(QString::number(total)));
    QCOMPARE(calls.first(), qMakePair(0, total));
    QCOMPARE(calls.last(), qMakePair(total, total));
    QCOMPARE(calls.size(), 1 + (total + 63) / 64);
    for (int i = 1; i < calls.size(); ++i)
        QCOMPARE(calls[i].first - calls[i - 1].first, std::min(64, total - calls[i - 1].first));
}

void TestChatSession::stopDuringASilentDecode()
{
    // A decode that sends no result and never calls the abort callback (all layers on a GPU; a
    // batch shared with an API request): Stop still ends the answer at once, not at llama.cpp's
    // reader's next look a second later (StopWaker).
    using namespace std::chrono;
    auto model = load(TestFixtures::instance().tinyLlama());
    auto s = session(model);
    std::atomic<bool> cancel{false};
    std::atomic<int> calls{0};
    decodeseam::Scoped seam(internal::llamaContext(*s), [&](int) -> std::optional<int32_t> {
        if (++calls == 1) // the prompt: silent for 3 s
            std::this_thread::sleep_for(seconds(3));
        return std::nullopt;
    });
    std::atomic<steady_clock::rep> stoppedAt{0};
    std::thread stopper([&] {
        std::this_thread::sleep_for(milliseconds(150));
        stoppedAt = steady_clock::now().time_since_epoch().count();
        cancel = true;
    });
    auto r = s->generate({{"user", "Tell me a story", {}}}, seeded(8), {}, &cancel);
    const auto returnedAt = steady_clock::now();
    stopper.join();
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
    QCOMPARE(r->stats.stopReason, StopReason::Cancelled);
    QCOMPARE(r->stats.generatedTokens, 0);
    QCOMPARE(calls.load(), 1);
    const auto ms = duration_cast<milliseconds>(returnedAt - steady_clock::time_point(steady_clock::duration(stoppedAt)));
    QVERIFY2(ms < milliseconds(500), qPrintable(QStringLiteral("the answer ended %1 ms after Stop").arg(ms.count())));
    // The next answer waits for the loop to finish that decode, and is whole.
    cancel = false;
    auto again = s->generate({{"user", "Again", {}}}, seeded(4));
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().detail.c_str());
    QVERIFY(again->stats.stopReason != StopReason::Cancelled);
}

QTEST_GUILESS_MAIN(TestChatSession)
#include "tst_chatsession.moc"
