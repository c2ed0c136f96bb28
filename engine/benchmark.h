#pragma once

#include "chatsession.h"
#include "error.h"
#include "model.h"
#include "settings.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shoehorn {

// Mean and sample standard deviation, as llama-bench reports them.
struct Stats {
    double mean = 0;
    double stddev = 0;
    int samples = 0;
};
Stats summarize(const std::vector<double> &values);

// Early stopping for short auto-tune measurements: stop once the relative standard error of
// the mean is below `relativeError`, after at least `minSamples` (at most `maxSamples`).
struct EarlyStop {
    int minSamples = 2;
    int maxSamples = 5;
    double relativeError = 0.02;
    bool done(const std::vector<double> &values) const;
};

struct BenchRequest {
    int promptTokens = 512;   // pp N (0: skip)
    int generateTokens = 128; // tg N (0: skip)
    int repetitions = 5;
    bool chatPath = true;     // also time the full chat path for tg
    bool rawGeneration = true; // tg as single-token decodes (false: the chat path alone)
    EarlyStop stop{5, 5, 0.0}; // default: exactly `repetitions` runs like llama-bench
};

struct BenchResult {
    Stats promptTps;    // pp: tokens/s of prompt processing
    Stats generateTps;  // tg: tokens/s of single-token decodes
    Stats chatTps;      // the chat path: templating, sampling, detokenising, delta callback
    std::vector<double> promptRuns, generateRuns, chatRuns;
};

// Measures a loaded model the way llama-bench does (random tokens, a warm-up run, the KV
// cache cleared before each repetition), plus the full chat path through ChatSession.
Result<BenchResult> runBenchmark(const std::shared_ptr<Model> &model, const ContextSettings &context,
                                 const BenchRequest &request, const std::atomic<bool> *cancel = nullptr,
                                 const std::function<void(const std::string &)> &progress = {});

} // namespace shoehorn
