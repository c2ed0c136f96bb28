// Vision projectors (mmproj): reading, pairing, refusing the wrong one, checking images, and
// an image's tokens entering a chat session's context (tiny Qwen3.5-style model, M-RoPE).
#include "autofit.h"
#include "chatsession.h"
#include "fixtures.h"
#include "hardware.h"
#include "llamahandles.h" // llama.cpp's own multimodal helper as the reference
#include "planner.h"
#include "projector.h"
#include "testfixtures.h"
#include "testsessions.h"

#include <QtTest>

#include <deque>
#include <thread>

#include <llama-cpp.h>
#include <mtmd-helper.h>
#include <mtmd.h>

using namespace shoehorn;

namespace {
using testsessions::load;
using testsessions::session;

std::shared_ptr<Projector> projectorFor(const std::shared_ptr<Model> &m)
{
    auto p = Projector::load(m, TestFixtures::instance().projector().toStdString(), {false, 2});
    if (!p.ok())
        qFatal("projector failed: %s", p.error().detail.c_str());
    return *p;
}

ImageData image(int w, int h, int seed = 0)
{
    const QByteArray b = TestFixtures::bmpImage(w, h, seed);
    return ImageData{std::string(b.constData(), size_t(b.size()))};
}

GenerationOptions greedy(int maxTokens)
{
    GenerationOptions o;
    o.maxTokens = maxTokens;
    o.sampling.temperature = 0.0f;
    return o;
}

// The greedy answer llama.cpp's own helper gives for `prompt` (with its images): chunks
// evaluated by mtmd_helper_eval_chunks, which places image positions itself (M-RoPE).
std::vector<llama_token> referenceAnswer(const std::shared_ptr<Model> &model, const Projector &projector,
                                         const std::string &prompt, const std::vector<ImageData> &images, int n)
{
    mtmd_context *mctx = internal::Access::projector(projector);
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 2048;
    cp.n_threads = cp.n_threads_batch = 2;
    llama_context_ptr ctx(llama_init_from_model(internal::llamaModel(*model), cp));
    std::deque<mtmd::bitmap> bitmaps; // not movable: never relocated
    std::vector<const mtmd_bitmap *> raw;
    for (const auto &img : images) {
        auto w = mtmd_helper_bitmap_init_from_buf(mctx, reinterpret_cast<const unsigned char *>(img.bytes.data()),
                                                  img.bytes.size(), false, mtmd_helper_init_opt_default());
        bitmaps.emplace_back(w.bitmap);
        raw.push_back(w.bitmap);
    }
    mtmd::input_chunks chunks(mtmd_input_chunks_init());
    const mtmd_input_text text{prompt.c_str(), prompt.size(), true, true};
    if (mtmd_tokenize(mctx, chunks.ptr.get(), &text, raw.data(), raw.size()) != 0)
        qFatal("mtmd_tokenize failed");
    llama_pos past = 0;
    if (mtmd_helper_eval_chunks(mctx, ctx.get(), chunks.ptr.get(), 0, 0, 512, true, &past) != 0)
        qFatal("mtmd_helper_eval_chunks failed");
    std::vector<llama_token> out;
    const llama_vocab *vocab = internal::llamaVocab(*model);
    llama_batch batch = llama_batch_init(1, 0, 1);
    for (int i = 0; i < n; ++i) {
        const float *logits = llama_get_logits_ith(ctx.get(), -1);
        llama_token best = 0;
        for (llama_token t = 1; t < llama_vocab_n_tokens(vocab); ++t)
            if (logits[t] > logits[best])
                best = t;
        if (llama_vocab_is_eog(vocab, best))
            break;
        out.push_back(best);
        batch.n_tokens = 1;
        batch.token[0] = best;
        batch.pos[0] = past++;
        batch.n_seq_id[0] = 1;
        batch.seq_id[0][0] = 0;
        batch.logits[0] = true;
        if (llama_decode(ctx.get(), batch) != 0)
            qFatal("decode failed");
    }
    llama_batch_free(batch);
    return out;
}

std::string detokenize(const std::shared_ptr<Model> &model, const std::vector<llama_token> &tokens)
{
    std::string s;
    for (llama_token t : tokens) {
        char buf[256];
        const int n = llama_token_to_piece(internal::llamaVocab(*model), t, buf, sizeof buf, 0, false);
        if (n > 0)
            s.append(buf, size_t(n));
    }
    return s;
}

GenerationOptions seeded(int maxTokens)
{
    GenerationOptions o;
    o.maxTokens = maxTokens;
    o.sampling.seed = 11;
    return o;
}

// A PNG signature and IHDR chunk claiming w x h pixels: enough for a header-only check.
std::string pngHeader(quint32 w, quint32 h)
{
    std::string s("\x89PNG\r\n\x1a\n", 8);
    s += std::string("\0\0\0\x0dIHDR", 8);
    for (quint32 v : {w, h})
        for (int i = 3; i >= 0; --i)
            s += char((v >> (8 * i)) & 0xff);
    s += std::string("\x08\x02\0\0\0", 5);
    s += std::string(4, '\0'); // CRC (not checked by a header probe)
    return s;
}
} // namespace

class TestProjector : public QObject
{
    Q_OBJECT
private slots:
    void inspect_data();
    void inspect();
    void findsProjectorsBesideTheModel();
    void refusesAProjectorOfAnotherModel();
    void probeImage_data();
    void probeImage();
    void planCountsTheProjector();
    void fullSizeQwen35Projector();
    void imageTokens_data();
    void imageTokens();
    void imageTokensEnterTheContext();
    void nextTurnReusesTheImage();
    void sameAnswerAsLlamaCppsHelper();
    void cachedTurnAnswersAsAFreshOne();
    void stopWhileAnImageIsEncoded();
    void stopEndsOnlyTheChatsOwnPictures_data();
    void stopEndsOnlyTheChatsOwnPictures();
    void imageWithoutProjectorIsRefused();
    void brokenImageLosesNothing();
};

void TestProjector::inspect_data()
{
    QTest::addColumn<QString>("precision");
    QTest::newRow("F16") << "F16";
    QTest::newRow("F32") << "F32";
}

void TestProjector::inspect()
{
    QFETCH(QString, precision);
    auto info = inspectProjector(TestFixtures::instance().projector(precision).toStdString());
    QVERIFY2(info.ok(), info.ok() ? "" : info.error().detail.c_str());
    QCOMPARE(info->projectorType, std::string("qwen3vl_merger"));
    QCOMPARE(QString::fromStdString(info->precision), precision);
    QCOMPARE(info->outputEmbedding, 64u);
    QVERIFY(info->vision);
    QVERIFY(info->tensorBytes > 0 && info->tensorBytes < info->fileSize);
}

void TestProjector::findsProjectorsBesideTheModel()
{
    TestFixtures &f = TestFixtures::instance();
    const QString model = f.tinyVision();
    const QString f16 = f.projector("F16"), f32 = f.projector("F32");
    const auto found = findProjectors(model.toStdString());
    QCOMPARE(found.size(), size_t(2));
    QCOMPARE(QString::fromStdString(found[0]), f16); // F16 first, as llama.cpp's downloads pair it
    QCOMPARE(QString::fromStdString(found[1]), f32);
    QVERIFY(isProjectorFileName(f16.toStdString()));
    QVERIFY(!isProjectorFileName(model.toStdString()));
}

void TestProjector::refusesAProjectorOfAnotherModel()
{
    TestFixtures &f = TestFixtures::instance();
    auto model = inspectModel(f.tinyVision().toStdString());
    QVERIFY(model.ok());
    auto wrong = inspectProjector(f.projectorMismatch().toStdString());
    QVERIFY(wrong.ok());
    const Error e = checkProjectorMatches(*wrong, *model);
    QCOMPARE(e.code, ErrorCode::ProjectorMismatch);
    QVERIFY2(e.detail.find("width 32") != std::string::npos && e.detail.find("width 64") != std::string::npos,
             e.detail.c_str());
    // Loading it is refused the same way, before libmtmd sees it.
    auto loaded = Projector::load(load(f.tinyVision()), f.projectorMismatch().toStdString());
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().code, ErrorCode::ProjectorMismatch);
    // The same width, but a model without M-RoPE: not what a Qwen-VL merger was made for.
    auto plain = inspectModel(f.tinyApi().toStdString());
    QVERIFY(plain.ok());
    auto right = inspectProjector(f.projector().toStdString());
    const Error noMrope = checkProjectorMatches(*right, *plain);
    QCOMPARE(noMrope.code, ErrorCode::ProjectorMismatch);
    QVERIFY2(noMrope.detail.find("M-RoPE") != std::string::npos && noMrope.detail.find("(llama)") != std::string::npos,
             noMrope.detail.c_str());
    QVERIFY(!checkProjectorMatches(*right, *model)); // and the model it was made for takes it
    // A model is not a projector.
    auto notOne = inspectProjector(f.tinyVision().toStdString());
    QVERIFY(!notOne.ok());
    QCOMPARE(notOne.error().code, ErrorCode::ProjectorMismatch);
    QVERIFY(notOne.error().detail.find("not a projector") != std::string::npos);
}

void TestProjector::probeImage_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("says");
    const QByteArray bmp = TestFixtures::bmpImage(40, 30);
    QTest::newRow("bmp") << bmp << true << "";
    QTest::newRow("empty") << QByteArray() << false << "empty";
    QTest::newRow("text") << QByteArray("just some text, not a picture") << false << "not an image";
    QTest::newRow("webp") << QByteArray("RIFF\x10\0\0\0WEBPVP8 ", 16) << false << "WebP";
    const std::string huge = pngHeader(20000, 20000);
    QTest::newRow("20000x20000") << QByteArray(huge.data(), qsizetype(huge.size())) << false << "20000x20000";
    QTest::newRow("truncated header") << bmp.left(10) << false << "not an image";
}

void TestProjector::probeImage()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, ok);
    QFETCH(QString, says);
    auto r = shoehorn::probeImage(std::string(bytes.constData(), size_t(bytes.size())));
    QCOMPARE(r.ok(), ok);
    if (ok) {
        QCOMPARE(r->width, 40);
        QCOMPARE(r->height, 30);
    } else {
        QCOMPARE(r.error().code, ErrorCode::ImageInvalid);
        QVERIFY2(QString::fromStdString(r.error().detail).contains(says), r.error().detail.c_str());
    }
}

void TestProjector::planCountsTheProjector()
{
    TestFixtures &f = TestFixtures::instance();
    auto bytes = projectorMemory(f.projector().toStdString(), false);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().detail.c_str());
    auto info = inspectProjector(f.projector().toStdString());
    QVERIFY(*bytes > info->tensorBytes); // weights and a compute buffer
    auto model = inspectModel(f.tinyVision().toStdString());
    PlanSettings s;
    s.load.gpuLayers = 0;
    s.context.contextSize = 2048;
    PlanTarget cpu;
    cpu.ramAvailableBytes = 8ull << 30;
    cpu.ramTotalBytes = 16ull << 30;
    const MemoryPlan without = analyticPlan(*model, s, cpu);
    s.projectorBytes = *bytes;
    s.projectorOnGpu = false;
    const MemoryPlan with = analyticPlan(*model, s, cpu);
    QCOMPARE(with.ram.use.total() - without.ram.use.total(), *bytes);
    QCOMPARE(with.anonymousBytes() - without.anonymousBytes(), *bytes); // read in, not mapped
    s.serverLoop = true;
    s.apiSlots = 2;
    QCOMPARE(analyticPlan(*model, s, cpu).ram.use.projector, *bytes); // one copy, shared with the API
}

// Qwen3.5-35B-A3B with its BF16 mmproj (0.90 GB) on a 12 GB card: the plan puts weights and
// compute buffer (llama.cpp's dry run of it) on the GPU, and auto-fit makes room for it.
void TestProjector::fullSizeQwen35Projector()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("mmproj-BF16.gguf").toStdString();
    QCOMPARE(QString::fromStdString(fixtures::writeProjector(fixtures::qwen35_35b_a3b_projector(), path)), QString());
    auto info = inspectProjector(path);
    QVERIFY(info.ok());
    QCOMPARE(info->precision, std::string("BF16"));
    QCOMPARE(info->outputEmbedding, 2048u);
    QVERIFY(info->tensorBytes > 850'000'000ull && info->tensorBytes < 900'000'000ull);
    auto model = inspectModel(TestFixtures::instance().qwen35_35b().toStdString());
    QVERIFY(model.ok());
    QVERIFY(!checkProjectorMatches(*info, *model));
    auto bytes = projectorMemory(path, true);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().detail.c_str());
    QVERIFY(*bytes > info->tensorBytes && *bytes < 2 * info->tensorBytes);
    const PlanTarget gpu = targetFromProfile(*findProfile("rtx3060-12g"));
    FitRequest r;
    r.settings.context.contextSize = 32768;
    r.locks.contextSize = true;
    const FitResult without = autoFit(*model, r, gpu);
    r.settings.projectorBytes = *bytes;
    const FitResult with = autoFit(*model, r, gpu);
    QVERIFY(without.ok() && with.ok());
    QCOMPARE(with.plan.gpus[0].use.projector, *bytes);
    QVERIFY(with.plan.gpus[0].fits(r.marginBytes));
    // The projector takes room the experts had: at least as many stay on the CPU.
    QVERIFY(with.plan.cpuMoeLayers >= without.plan.cpuMoeLayers);
    QVERIFY(with.plan.gpus[0].use.weights() < without.plan.gpus[0].use.weights());
}

void TestProjector::imageTokens_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("tokens"); // 16-pixel patches merged 2x2: one token per 32x32 pixels
    QTest::newRow("1024x1024") << 1024 << 1024 << 1024;
    QTest::newRow("96x64") << 96 << 64 << 12;       // 3x2 is below llama.cpp's minimum of 8: scaled up to 4x3
    QTest::newRow("1920x1080") << 1920 << 1080 << 2040; // 60 x 34 (1080 rounds to 1088)
    QTest::newRow("4000x3000") << 4000 << 3000 << 4015; // over 4096: scaled down to 73 x 55
    QTest::newRow("100x4000") << 100 << 4000 << 375; // a long strip
    QTest::newRow("1x1") << 1 << 1 << 9;
}

// The estimate from the file's metadata (what plan --mmproj and the panel show before loading)
// is llama.cpp's own count once it is loaded.
void TestProjector::imageTokens()
{
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, tokens);
    static std::shared_ptr<Projector> loaded = projectorFor(load(TestFixtures::instance().tinyVision()));
    QCOMPARE(loaded->imageTokens(width, height), tokens);
    QCOMPARE(estimateImageTokens(loaded->info(), width, height), tokens);
}

void TestProjector::imageTokensEnterTheContext()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto s = session(model);
    auto plain = s->generate({{"user", "What is in the picture?", {}}}, seeded(4));
    QVERIFY(plain.ok());
    s->setProjector(projectorFor(model));
    int prefilled = 0;
    StreamCallbacks cb;
    cb.onPrefill = [&](int done, int) { prefilled = done; };
    auto seen = s->generate({{"user", "What is in the picture?", {}, {image(96, 64)}}}, seeded(4), cb);
    QVERIFY2(seen.ok(), seen.ok() ? "" : seen.error().detail.c_str());
    // 96x64 at 16-pixel patches merged 2x2: 3x2 = 6 tokens at least (llama.cpp may scale it
    // up to its minimum), plus the marker's text; all of it decoded and in the cache.
    const int added = seen->stats.promptTokens - plain->stats.promptTokens;
    QVERIFY2(added >= 6, qPrintable(QString::number(added)));
    QCOMPARE(prefilled, seen->stats.promptEvaluated);
    QCOMPARE(s->cachedTokens(), seen->stats.contextUsed);
    // Every answer token but the last sampled one, which ended the answer undecoded.
    QCOMPARE(seen->stats.contextUsed, seen->stats.promptTokens + seen->stats.generatedTokens - 1);
    // Another image gives another prompt: the tokens really are the picture's.
    s->clearCache();
    auto other = s->generate({{"user", "What is in the picture?", {}, {image(96, 64, 5)}}}, seeded(4));
    QVERIFY(other.ok());
    QCOMPARE(other->stats.promptTokens, seen->stats.promptTokens);
}

void TestProjector::nextTurnReusesTheImage()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto s = session(model);
    s->setProjector(projectorFor(model));
    std::vector<ChatMessage> h{{"user", "Describe it.", {}, {image(64, 64, 1), image(64, 32, 2)}}};
    auto first = s->generate(h, seeded(6));
    QVERIFY2(first.ok(), first.ok() ? "" : first.error().detail.c_str());
    h.push_back({"assistant", first->content, {}});
    h.push_back({"user", "And now?", {}});
    auto second = s->generate(h, seeded(4));
    QVERIFY(second.ok());
    // The whole first turn, both images included, stays in the cache (recurrent layers of this
    // hybrid model cannot roll back, so this also proves nothing needed to).
    QVERIFY2(second->stats.reusedTokens >= first->stats.promptTokens,
             qPrintable(QStringLiteral("%1 < %2").arg(second->stats.reusedTokens).arg(first->stats.promptTokens)));
    // A new image in a new message is encoded and added after the cached turns.
    h.push_back({"assistant", second->content, {}});
    h.push_back({"user", "This one?", {}, {image(32, 32, 3)}});
    auto third = s->generate(h, seeded(4));
    QVERIFY2(third.ok(), third.ok() ? "" : third.error().detail.c_str());
    QVERIFY(third->stats.reusedTokens >= second->stats.promptTokens);
    QCOMPARE(s->cachedTokens(), third->stats.contextUsed);
}

void TestProjector::sameAnswerAsLlamaCppsHelper()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto s = session(model);
    auto projector = projectorFor(model);
    s->setProjector(projector);
    const std::vector<ChatMessage> h{{"user", "Which colours?", {}, {image(96, 64, 4), image(64, 64, 6)}}};
    auto ours = s->generate(h, greedy(12));
    QVERIFY2(ours.ok(), ours.ok() ? "" : ours.error().detail.c_str());
    auto prompt = s->formatPrompt(h, greedy(12));
    QVERIFY(prompt.ok());
    const std::string reference = detokenize(model, referenceAnswer(model, *projector, *prompt, h[0].images, 12));
    QVERIFY(!reference.empty());
    QCOMPARE(QString::fromStdString(ours->content), QString::fromStdString(reference));
}

// The second turn decodes only its new message and image after the cached first one: the
// answer must still be llama.cpp's for the whole prompt (positions after an M-RoPE image).
void TestProjector::cachedTurnAnswersAsAFreshOne()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto projector = projectorFor(model);
    auto s = session(model);
    s->setProjector(projector);
    std::vector<ChatMessage> h{{"user", "First picture.", {}, {image(64, 64, 7)}}};
    // No answer tokens: the next prompt then extends this one exactly, with no generated
    // tokens whose re-tokenization could differ from what the cache holds.
    auto first = s->generate(h, greedy(0));
    QVERIFY(first.ok());
    h.push_back({"assistant", "", {}});
    h.push_back({"user", "Second picture.", {}, {image(32, 64, 8)}});
    auto second = s->generate(h, greedy(10));
    QVERIFY2(second.ok(), second.ok() ? "" : second.error().detail.c_str());
    QCOMPARE(second->stats.reusedTokens, first->stats.promptTokens);
    auto prompt = s->formatPrompt(h, greedy(10));
    QVERIFY(prompt.ok());
    const std::string reference =
        detokenize(model, referenceAnswer(model, *projector, *prompt, {h[0].images[0], h[2].images[0]}, 10));
    QCOMPARE(QString::fromStdString(second->content), QString::fromStdString(reference));
}

// Five 1024x1024 pictures (1024 image tokens each): over a second of encoding on this CPU. Stop
// while the third is encoded ends it within 200 ms, the session says Cancelled, the encoder stops
// too (the next answer does not wait for the rest of the picture), and the next answer works. (One graph node cannot be stopped: a single 2048x2048 picture's first attention
// over 16384 patches is one node of about 1.5 s here, so the stop granularity is one node.)
void TestProjector::stopWhileAnImageIsEncoded()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto s = session(model, 8192);
    s->setProjector(projectorFor(model));
    auto pictures = [](int seed) {
        std::vector<ImageData> v;
        for (int i = 0; i < 5; ++i)
            v.push_back(image(1024, 1024, seed * 10 + i));
        return v;
    };
    QElapsedTimer t;
    t.start();
    int images = 0, count = 0;
    StreamCallbacks cb;
    qint64 imageAt = 0;
    cb.onImage = [&](int number, int n) {
        images = number;
        count = n;
        if (number == 1)
            imageAt = t.elapsed();
    };
    auto full = s->generate({{"user", "Five.", {}, pictures(1)}}, seeded(1), cb);
    const qint64 imageMs = t.elapsed() - imageAt; // encoding and decoding the images, and one token
    QVERIFY2(full.ok(), full.ok() ? "" : full.error().detail.c_str());
    QCOMPARE(images, 5);
    QCOMPARE(count, 5);
    QVERIFY2(imageMs > 1000, qPrintable(QString::number(imageMs))); // else this test proves nothing here
    s->clearCache();
    // Stop 50 ms into the third picture.
    std::atomic<bool> cancel{false}, third{false}, done{false};
    StreamCallbacks stopCb;
    QElapsedTimer sinceStop;
    stopCb.onImage = [&](int number, int) { third = third || number == 3; };
    std::thread stopper([&] {
        while (!third && !done) // done: the answer ended without a third picture (the test fails below)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        sinceStop.start();
        cancel = true;
    });
    auto stopped = s->generate({{"user", "Five.", {}, pictures(2)}}, seeded(1), stopCb, &cancel);
    const qint64 stopMs = sinceStop.elapsed();
    done = true;
    stopper.join();
    QVERIFY2(stopped.ok(), stopped.ok() ? "" : stopped.error().detail.c_str());
    QCOMPARE(stopped->stats.stopReason, StopReason::Cancelled);
    qInfo("stopped %lld ms after Stop; the five pictures took %lld ms", stopMs, imageMs);
    QVERIFY2(stopMs < 200, qPrintable(QStringLiteral("%1 ms after Stop (the pictures took %2 ms)").arg(stopMs).arg(imageMs)));
    QVERIFY(s->cachedTokens() < stopped->stats.promptTokens); // the text before the pictures, at most
    // The encoder itself stopped (the loop raised the gate for the chat's picture), not only the
    // answer: the loop is free for the next one at once, not after the rest of the picture.
    QElapsedTimer next;
    next.start();
    auto quick = s->generate({{"user", "Hi.", {}}}, greedy(1));
    const qint64 nextMs = next.elapsed();
    QVERIFY2(quick.ok(), quick.ok() ? "" : quick.error().detail.c_str());
    // Unstopped, the rest of the picture is most of one (about imageMs / 5); stopped, one stopping
    // point's nodes and the next answer's own token.
    QVERIFY2(nextMs < imageMs / 8, qPrintable(QStringLiteral("the next answer came %1 ms after the stopped one; at most %2 ms "
                                                              "were expected (the five pictures took %3 ms)")
                                                   .arg(nextMs).arg(imageMs / 8).arg(imageMs)));
    s->clearCache();
    // The stopped encoding was not kept: the same pictures again are encoded and answered.
    auto again = s->generate({{"user", "Five.", {}, pictures(2)}}, seeded(1));
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().detail.c_str());
    QCOMPARE(again->stats.stopReason, StopReason::MaxTokens);
    QCOMPARE(again->stats.promptTokens, full->stats.promptTokens);
}

// The projector is shared: the loop encodes the API's pictures with it too, and the chat's Stop
// may end only the chat's own (the loop raises the gate while it encodes the desktop slot's:
// cmake/LlamaServer.cmake; stopWhileAnImageIsEncoded is that side). Here the encoder directly,
// through llama.cpp's own helper, with the Stop flag up.
void TestProjector::stopEndsOnlyTheChatsOwnPictures_data()
{
    QTest::addColumn<int>("gate"); // -1: none (a projector outside the loop), 0: down, 1: up
    QTest::addColumn<bool>("stopped");
    QTest::newRow("the chat's picture") << 1 << true;
    QTest::newRow("an API request's picture") << 0 << false;
    QTest::newRow("no loop") << -1 << true;
}

void TestProjector::stopEndsOnlyTheChatsOwnPictures()
{
    QFETCH(int, gate);
    QFETCH(bool, stopped);
    auto model = load(TestFixtures::instance().tinyVision());
    auto projector = projectorFor(model);
    mtmd_context *mctx = internal::Access::projector(*projector);
    // Two pictures of the same size: A, and B to leave other values in the encoder's buffers.
    std::deque<mtmd::bitmap> bitmaps; // not movable: never relocated
    std::deque<mtmd::input_chunks> tokenized;
    std::vector<const mtmd_input_chunk *> pictures;
    for (int seed : {1, 2}) {
        const ImageData img = image(256, 256, seed);
        bitmaps.emplace_back(mtmd_helper_bitmap_init_from_buf(mctx, reinterpret_cast<const unsigned char *>(img.bytes.data()),
                                                              img.bytes.size(), false, mtmd_helper_init_opt_default())
                                 .bitmap);
        const mtmd_bitmap *raw = bitmaps.back().ptr.get();
        QVERIFY(raw);
        tokenized.emplace_back(mtmd_input_chunks_init());
        const std::string prompt = std::string("Look: ") + Projector::marker();
        const mtmd_input_text text{prompt.c_str(), prompt.size(), true, true};
        QCOMPARE(mtmd_tokenize(mctx, tokenized.back().ptr.get(), &text, &raw, 1), 0);
        mtmd_input_chunks *c = tokenized.back().ptr.get();
        for (size_t i = 0; i < mtmd_input_chunks_size(c); ++i)
            if (mtmd_input_chunk_get_type(mtmd_input_chunks_get(c, i)) == MTMD_INPUT_CHUNK_TYPE_IMAGE)
                pictures.push_back(mtmd_input_chunks_get(c, i));
    }
    QCOMPARE(int(pictures.size()), 2);
    // The encoder's eval callback ends a graph early without an error: what a stop leaves is
    // embeddings that are not the picture's.
    const size_t n = mtmd_input_chunk_get_n_tokens(pictures[0]) * size_t(llama_model_n_embd_inp(internal::llamaModel(*model)));
    const auto encode = [&](const mtmd_input_chunk *picture) {
        const int32_t r = mtmd_encode_chunk(mctx, picture);
        const float *e = mtmd_get_output_embd(mctx);
        return r == 0 && e ? std::vector<float>(e, e + n) : std::vector<float>();
    };
    const std::vector<float> whole = encode(pictures[0]);
    QVERIFY(!whole.empty());
    QVERIFY(encode(pictures[1]) != whole);
    const std::atomic<bool> stop{true}, open{gate == 1};
    internal::Access::setProjectorCancel(*projector, &stop, gate < 0 ? nullptr : &open);
    const std::vector<float> withStop = encode(pictures[0]);
    internal::Access::setProjectorCancel(*projector, nullptr);
    QCOMPARE(withStop != whole, stopped);
}

void TestProjector::imageWithoutProjectorIsRefused()
{
    auto s = session(load(TestFixtures::instance().tinyVision()));
    auto r = s->generate({{"user", "Look.", {}, {image(32, 32)}}}, seeded(2));
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::NoProjector);
}

void TestProjector::brokenImageLosesNothing()
{
    auto model = load(TestFixtures::instance().tinyVision());
    auto s = session(model);
    s->setProjector(projectorFor(model));
    auto r = s->generate({{"user", "Look.", {}, {ImageData{pngHeader(64, 64)}}}}, seeded(2)); // no pixels
    QVERIFY(!r.ok());
    QCOMPARE(r.error().code, ErrorCode::ImageInvalid);
    QVERIFY2(r.error().detail.find("image 1") != std::string::npos, r.error().detail.c_str());
    // The session still answers.
    auto ok = s->generate({{"user", "Look.", {}, {image(32, 32)}}}, seeded(2));
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().detail.c_str());
}

QTEST_GUILESS_MAIN(TestProjector)
#include "tst_projector.moc"
