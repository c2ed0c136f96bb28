// The sampler shortcut picks exactly the token llama.cpp's full-vocabulary path picks.
#include "candidatesampler.h"

#include <QtTest>

#include <random>

using shoehorn::CandidateSampler;
using shoehorn::SamplingSettings;
Q_DECLARE_METATYPE(SamplingSettings)

class TestCandidateSampler : public QObject
{
    Q_OBJECT
private slots:
    void sameTokensAsFullVocabulary_data();
    void sameTokensAsFullVocabulary();
    void fallsBackWhenNoCut_data();
    void fallsBackWhenNoCut();
};

namespace {
SamplingSettings settings(float temp, int topK, float topP, float minP, float presence, float repeat, int lastN)
{
    SamplingSettings s;
    s.temperature = temp;
    s.topK = topK;
    s.topP = topP;
    s.minP = minP;
    s.presencePenalty = presence;
    s.repeatPenalty = repeat;
    s.repeatLastN = lastN;
    s.seed = 1234;
    return s;
}
} // namespace

void TestCandidateSampler::sameTokensAsFullVocabulary_data()
{
    QTest::addColumn<SamplingSettings>("s");
    QTest::addColumn<int>("keep");
    QTest::newRow("defaults (top-k 40)") << settings(0.8f, 40, 0.95f, 0.05f, 0, 1, 64) << 40;
    QTest::newRow("thinking-general (presence 1.5)") << settings(1.0f, 20, 0.95f, 0, 1.5f, 1, 64) << 84;
    QTest::newRow("thinking-coding") << settings(0.6f, 20, 0.95f, 0, 0, 1, 64) << 20;
    QTest::newRow("instruct-general") << settings(0.7f, 20, 0.8f, 0, 1.5f, 1, 64) << 84;
    QTest::newRow("repeat penalty 1.1") << settings(0.7f, 20, 0.8f, 0, 0, 1.1f, 32) << 52;
    QTest::newRow("greedy") << settings(0, 40, 0.95f, 0.05f, 0, 1, 64) << 1;
    QTest::newRow("greedy with presence") << settings(0, 40, 0.95f, 0.05f, 2.0f, 1, 64) << 65;
}

void TestCandidateSampler::sameTokensAsFullVocabulary()
{
    QFETCH(SamplingSettings, s);
    QFETCH(int, keep);
    // Qwen's vocabulary size; logits spread like a model's, with a few strong tokens, and a
    // history where the favourites repeat so the penalties bite.
    const int vocab = 151936;
    CandidateSampler fast(s, vocab);
    CandidateSampler full(s, vocab);
    full.setFullVocabulary(true);
    QCOMPARE(fast.candidateCount(), keep);
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 2.0f);
    std::uniform_int_distribution<int> pick(0, 300);
    std::vector<float> pool(static_cast<size_t>(2 * vocab));
    for (float &l : pool)
        l = noise(rng);
    std::vector<float> logits(static_cast<size_t>(vocab));
    std::uniform_int_distribution<int> offset(0, vocab - 1);
    int differences = 0;
    for (int step = 0; step < 200; ++step) {
        const auto from = pool.begin() + offset(rng);
        std::copy(from, from + vocab, logits.begin());
        for (int i = 0; i < 30; ++i)
            logits[size_t(pick(rng))] += 12.0f; // a few likely tokens, often the same ones
        const auto a = fast.sample(logits.data());
        const auto b = full.sample(logits.data());
        differences += a != b;
    }
    QCOMPARE(differences, 0);
}

void TestCandidateSampler::fallsBackWhenNoCut_data()
{
    QTest::addColumn<SamplingSettings>("s");
    QTest::newRow("top-k off") << settings(0.8f, 0, 0.95f, 0.05f, 0, 1, 64);
    QTest::newRow("boosting repeat penalty") << settings(0.8f, 40, 0.95f, 0.05f, 0, 0.9f, 64);
    QTest::newRow("negative presence") << settings(0.8f, 40, 0.95f, 0.05f, -1.0f, 1, 64);
    QTest::newRow("penalty over the whole context") << settings(0.8f, 40, 0.95f, 0.05f, 1.5f, 1, -1);
}

void TestCandidateSampler::fallsBackWhenNoCut()
{
    QFETCH(SamplingSettings, s);
    CandidateSampler sampler(s, 1000);
    QCOMPARE(sampler.candidateCount(), 1000);
    std::vector<float> logits(1000, 0.0f);
    logits[17] = 50.0f;
    QCOMPARE(sampler.sample(logits.data()), 17);
}

QTEST_GUILESS_MAIN(TestCandidateSampler)
#include "tst_candidatesampler.moc"
