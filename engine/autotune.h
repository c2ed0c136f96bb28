#pragma once

#include "autofit.h"
#include "benchmark.h"
#include "hardware.h"
#include "modelinfo.h"
#include "planner.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

struct TuneCandidate {
    PlanSettings settings;
    std::string label;          // e.g. "-ngl 49 --n-cpu-moe 30 -t 6 -ub 512 -fa on -ctk q8_0"
    bool lowerQuality = false;  // q4_0 K cache: faster, but answers get worse
    // Measured as whole answers through the server loop (the chat path), where speculative
    // decoding runs; generation speed is then the chat's tokens per second.
    bool chatPath = false;
};

struct TuneMeasurement {
    TuneCandidate candidate;
    Stats prompt;
    Stats generate;
    bool ok = false;
    Error error; // why not ok (typed: the window words it, e.g. out of memory)
};

// One step of the tuning story: the baseline, then one optimisation added at a time.
struct TuneStep {
    std::string name;           // "baseline", "GPU layers", "q8_0 KV", "more layers", "flash attention + threads"
    TuneMeasurement measurement;
    double speedup = 1.0;       // generation speed against the baseline
};

struct TuneRequest {
    PlanSettings base;                  // starting settings (user's)
    PlanTarget target;
    uint64_t marginBytes = 1024 * MiB;
    int promptTokens = 128;             // short measurements
    int generateTokens = 32;
    EarlyStop stop{2, 4, 0.03};
    std::vector<int> threads;           // empty: physical cores and one less
    std::vector<uint32_t> ubatch{256, 512};
    std::vector<FlashAttention> flash{FlashAttention::On, FlashAttention::Off};
    std::vector<std::string> kvTypes{"f16", "q8_0"};
    bool includeQ4K = false;            // try q4_0 K as well (flagged lower quality)
    // Speculative decoding as an axis (#29): each choice is measured on the chat path beside
    // the best configuration without it, and kept only where it is faster by more than the
    // run-to-run noise. Empty: speculation is not tuned (speculationChoices() offers the set).
    std::vector<SpeculationSettings> speculation;
};

// What auto-tune tries for speculation on this model: its MTP layer with 1-4 drafts where it
// has one, n-gram lookup, and the draft model the user gave (empty: none).
std::vector<SpeculationSettings> speculationChoices(const ModelInfo &model, const std::string &draftModel = {});

// Whether `a` generates faster than `b` by more than their run-to-run noise: twice the standard
// error of the difference, and at least 2 %.
bool fasterBeyondNoise(const Stats &a, const Stats &b);

struct TuneResult {
    std::vector<TuneMeasurement> measurements; // everything measured, in order
    int best = -1;                             // index into measurements
    std::vector<TuneStep> story;
    bool cancelled = false;
};

// Measures a configuration; the tuner calls it. The real one loads the model (reusing the
// loaded weights while the placement stays the same) and runs the benchmark.
using MeasureFn = std::function<TuneMeasurement(const TuneCandidate &)>;

class AutoTuner
{
public:
    AutoTuner(ModelInfo model, TuneRequest request);

    // Every configuration of the grid that fits the target (placement from auto-fit).
    std::vector<TuneCandidate> grid() const;
    // Coordinate search: start from auto-fit's placement and change one dimension at a time,
    // keeping the fastest generation. Measures far fewer configurations than the grid. Then, for
    // cards two backends see (PlanTarget::otherBackends), the best through the other backend,
    // and speculation (TuneRequest::speculation); each kept only where faster beyond the noise.
    TuneResult tune(const MeasureFn &measure, const std::atomic<bool> *cancel = nullptr,
                    const std::function<void(int done, int total)> &progress = {}) const;
    // Every configuration of grid(): the reference the coordinate search is tested against.
    TuneResult sweep(const MeasureFn &measure, const std::atomic<bool> *cancel = nullptr) const;
    // The seed recipe's table: baseline, + GPU layers, + q8_0 KV, + more layers, + flash
    // attention and threads, each measured; a step that changes nothing on this machine (no GPU
    // layers fit, a head size q8_0 does not divide) is left out. It ends with `best` (tune()'s
    // fastest, as tune() measured it, named "best") where that is another configuration, and is
    // measured like the steps (raw generation: a speculation trial's chat path is not).
    std::vector<TuneStep> story(const MeasureFn &measure, const std::atomic<bool> *cancel = nullptr,
                                const TuneMeasurement *best = nullptr) const;

    static std::string label(const PlanSettings &s);

private:
    bool fits(const PlanSettings &s) const;
    PlanSettings placement() const;
    std::vector<PlanSettings> placements() const;
    std::vector<int> threadChoices() const;
    void tuneBackend(TuneResult &r, TuneMeasurement &best,
                     const std::function<const TuneMeasurement &(const TuneCandidate &)> &run,
                     const std::atomic<bool> *cancel) const;
    void tuneSpeculation(TuneResult &r, TuneMeasurement &best,
                         const std::function<const TuneMeasurement &(const TuneCandidate &)> &run,
                         const std::atomic<bool> *cancel) const;

    ModelInfo m_model;
    TuneRequest m_request;
};

// The real measurement: loads (and keeps) the model per placement, benchmarks each context.
class BenchMeasurer
{
public:
    BenchMeasurer(std::string path, int promptTokens, int generateTokens, EarlyStop stop,
                  std::shared_ptr<Model> loaded = nullptr);
    TuneMeasurement operator()(const TuneCandidate &c);
    int loads() const { return m_loads; }
    // The weights of the last trial (the caller's again: a tune hands them back to the chat).
    std::shared_ptr<Model> takeModel() { return std::move(m_model); }

private:
    std::string m_path;
    int m_prompt;
    int m_generate;
    EarlyStop m_stop;
    std::shared_ptr<Model> m_model;
    int m_loads = 0;
};

} // namespace shoehorn
