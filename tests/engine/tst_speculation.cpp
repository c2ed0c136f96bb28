// Speculative decoding through the server loop's own code (#29): at temperature 0 the answer
// with each kind of speculation is the answer without it, drafts are made and accepted where
// the fixture repeats itself, and settings the model cannot speculate with are named in a
// sentence while the chat goes on without speculation.
#include "chatsession.h"
#include "hardware.h"
#include "model.h"
#include "planner.h"
#include "testfixtures.h"
#include "testsessions.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace shoehorn;

namespace {

// The tiny model answers this by repeating itself: n-gram lookups find what comes next.
const char *kPrompt = "a b c a b c a b c a b c";

GenerationOptions greedy()
{
    GenerationOptions o;
    o.maxTokens = 64;
    o.sampling.temperature = 0.0f;
    o.sampling.seed = 7;
    return o;
}

struct Answer {
    std::string text;
    GenerationStats stats;
    std::string note;
};

Answer answer(const std::shared_ptr<Model> &model, const SpeculationSettings &spec, int threads = 2)
{
    ContextSettings cs;
    cs.contextSize = 2048;
    // Two contexts (the model's and a draft's) with two threads each contend for 2 cores (in
    // llama-server too): the MTP rows run with one.
    cs.threads = threads;
    cs.speculation = spec;
    auto s = ChatSession::create(model, cs);
    if (!s.ok())
        qFatal("session: %s", s.error().detail.c_str());
    auto r = (*s)->generate({{"user", kPrompt, {}}}, greedy());
    if (!r.ok())
        qFatal("generate: %s", r.error().detail.c_str());
    return {r->content, r->stats, (*s)->speculationNote()};
}

} // namespace

class TestSpeculation : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void sameAnswer_data();
    void sameAnswer();
    void offWithASentence_data();
    void offWithASentence();
    void mtpLayer();
    void plannedAsLoaded_data();
    void plannedAsLoaded();

private:
    std::shared_ptr<Model> m_model;
    Answer m_plain;
    QTemporaryDir m_dir;
};

void TestSpeculation::initTestCase()
{
    m_model = testsessions::load(TestFixtures::instance().tinyApi());
    m_plain = answer(m_model, {});
    QVERIFY(m_plain.stats.generatedTokens > 32);
    QCOMPARE(m_plain.stats.draftTokens, 0);
}

void TestSpeculation::sameAnswer_data()
{
    QTest::addColumn<QString>("types");
    QTest::addColumn<QString>("draft"); // "self": the model as its draft (every draft agrees);
                                         // "small": tiny-api-draft, same vocabulary, other weights
    QTest::addColumn<int>("ngramSizeN");
    QTest::addColumn<bool>("drafts");    // the fixture makes drafts that are accepted
    QTest::newRow("ngram-simple, 2-grams") << "ngram-simple" << "" << 2 << true;
    QTest::newRow("ngram-simple, llama.cpp's 12-grams") << "ngram-simple" << "" << 0 << false;
    QTest::newRow("ngram-mod") << "ngram-mod" << "" << 0 << false;
    QTest::newRow("ngram-map-k, 2-grams") << "ngram-map-k" << "" << 2 << false;
    QTest::newRow("draft-simple, the model as its own draft") << "draft-simple" << "self" << 0 << true;
    QTest::newRow("draft model without a type (draft-simple)") << "none" << "self" << 0 << true;
    QTest::newRow("draft-simple, a smaller draft model") << "draft-simple" << "small" << 0 << false;
}

void TestSpeculation::sameAnswer()
{
    QFETCH(QString, types);
    QFETCH(QString, draft);
    const bool selfDraft = draft == "self";
    QFETCH(int, ngramSizeN);
    QFETCH(bool, drafts);
    SpeculationSettings spec;
    spec.types = types.toStdString();
    spec.ngramSizeN = ngramSizeN;
    if (selfDraft)
        spec.draftModel = TestFixtures::instance().tinyApi().toStdString();
    else if (draft == "small")
        spec.draftModel = TestFixtures::instance().tinyApiDraft().toStdString();
    const Answer a = answer(m_model, spec);
    if (!spec.draftModel.empty()) // a draft model drafts, right or wrong
        QVERIFY2(a.stats.draftTokens > 0, qPrintable(QString::number(a.stats.draftTokens)));
    QVERIFY2(a.note.empty(), a.note.c_str());
    QCOMPARE(a.text, m_plain.text);
    QCOMPARE(a.stats.generatedTokens, m_plain.stats.generatedTokens);
    if (drafts) {
        QVERIFY2(a.stats.draftTokens > 0, qPrintable(QString::number(a.stats.draftTokens)));
        QVERIFY(a.stats.draftAccepted > 0);
    }
    QVERIFY(a.stats.draftAccepted <= a.stats.draftTokens);
    if (selfDraft) // the same weights draft what the model then decodes
        QCOMPARE(a.stats.draftAccepted, a.stats.draftTokens);
}

void TestSpeculation::offWithASentence_data()
{
    QTest::addColumn<QString>("types");
    QTest::addColumn<QString>("draft"); // "missing", "text", "other-vocabulary" or empty
    QTest::addColumn<QString>("says");
    QTest::newRow("MTP on a model without an MTP layer") << "draft-mtp" << "" << "has no MTP layer";
    // What is wrong with the file, not only its name (it said "-md F: F" for a missing one).
    QTest::newRow("a draft file that is not there") << "draft-simple" << "missing" << "missing.gguf: The file does not exist.";
    QTest::newRow("a draft file that is not a GGUF") << "draft-simple" << "text"
                                                     << "notes.gguf: the file does not start with the GGUF magic";
    QTest::newRow("a draft model of another vocabulary") << "draft-simple" << "other-vocabulary" << "vocabulary";
}

void TestSpeculation::offWithASentence()
{
    QFETCH(QString, types);
    QFETCH(QString, draft);
    QFETCH(QString, says);
    SpeculationSettings spec;
    spec.types = types.toStdString();
    if (draft == "missing") {
        spec.draftModel = m_dir.filePath("missing.gguf").toStdString();
    } else if (draft == "text") {
        QFile f(m_dir.filePath("notes.gguf"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are notes, not a model\n");
        f.close();
        spec.draftModel = f.fileName().toStdString();
    } else if (draft == "other-vocabulary") {
        spec.draftModel = TestFixtures::instance().qwen3_30b().toStdString(); // 151936 tokens, this 406
    }
    const Answer a = answer(m_model, spec);
    QVERIFY2(QString::fromStdString(a.note).contains(says), a.note.c_str());
    QCOMPARE(a.text, m_plain.text); // the chat goes on, without speculation
    QCOMPARE(a.stats.draftTokens, 0);
}

// The model's own MTP layer (the qwen35moe fixture keeps one, as Qwen3.5/3.6 GGUFs do): loaded
// only when asked for, drafts every step, and the answer is the one without it. Random weights
// agree with themselves rarely, so only drafting is required, not acceptance.
void TestSpeculation::mtpLayer()
{
    LoadSettings ls;
    ls.gpuLayers = 0;
    auto plainModel = Model::load(TestFixtures::instance().tinyMtp().toStdString(), ls);
    QVERIFY2(plainModel.ok(), plainModel ? "" : plainModel.error().detail.c_str());
    QCOMPARE((*plainModel)->info().mtpLayers, 1u);
    const Answer plain = answer(*plainModel, {}, 1);
    SpeculationSettings mtp;
    mtp.types = "draft-mtp";
    // Loaded without its MTP layer: named, and the chat goes on.
    const Answer notLoaded = answer(*plainModel, mtp, 1);
    QVERIFY2(QString::fromStdString(notLoaded.note).contains("loaded without its MTP layer"), notLoaded.note.c_str());
    QCOMPARE(notLoaded.text, plain.text);
    plainModel->reset();
    ls.mtpLayers = true;
    auto model = Model::load(TestFixtures::instance().tinyMtp().toStdString(), ls);
    QVERIFY2(model.ok(), model ? "" : model.error().detail.c_str());
    const Answer a = answer(*model, mtp, 1);
    QVERIFY2(a.note.empty(), a.note.c_str());
    QCOMPARE(a.text, plain.text);
    QVERIFY2(a.stats.draftTokens > 0, qPrintable(QString::number(a.stats.draftTokens)));
    QVERIFY(a.stats.draftAccepted <= a.stats.draftTokens);
}

// What llama.cpp allocated for the draft context of a loaded session (measuredPlan, as
// --memory-report and the window's gauges show it) against the analytic plan of it.
void TestSpeculation::plannedAsLoaded_data()
{
    QTest::addColumn<bool>("mtp"); // else the model as its own draft model
    QTest::newRow("draft-mtp") << true;
    QTest::newRow("draft model") << false;
}

void TestSpeculation::plannedAsLoaded()
{
    QFETCH(bool, mtp);
    const std::string path = (mtp ? TestFixtures::instance().tinyMtp() : TestFixtures::instance().tinyApi()).toStdString();
    PlanSettings ps;
    ps.load.gpuLayers = 0;
    ps.load.mtpLayers = mtp;
    ps.context.contextSize = 2048;
    ps.context.threads = 1;
    ps.serverLoop = true;
    if (mtp) {
        ps.context.speculation.types = "draft-mtp";
    } else {
        ps.context.speculation.draftModel = path;
        auto d = inspectModel(path);
        QVERIFY(d.ok());
        ps.draftModel = std::make_shared<const ModelInfo>(*d);
    }
    auto model = Model::load(path, ps.load);
    QVERIFY2(model.ok(), model ? "" : model.error().detail.c_str());
    auto session = ChatSession::create(*model, ps.context);
    QVERIFY2(session.ok(), session ? "" : session.error().detail.c_str());
    QVERIFY2((*session)->speculationNote().empty(), (*session)->speculationNote().c_str());
    PlanTarget t = targetFromHardware(probeHardware());
    t.gpus.clear(); // everything is in RAM here (-ngl 0)
    const MemoryPlan planned = analyticPlan((*model)->info(), ps, t);
    const MemoryUse p = planned.ram.use;
    const MemoryUse got = measuredPlan(**session, planned).ram.use;
    QVERIFY(got.draftKv > 0);
    QCOMPARE(p.draftWeights, got.draftWeights);
    QCOMPARE(p.draftKv, got.draftKv);
    QVERIFY2(std::max(p.draftCompute, got.draftCompute) - std::min(p.draftCompute, got.draftCompute) <= MiB,
             qPrintable(QString("compute planned %1, allocated %2").arg(p.draftCompute).arg(got.draftCompute)));
}

QTEST_GUILESS_MAIN(TestSpeculation)
#include "tst_speculation.moc"
