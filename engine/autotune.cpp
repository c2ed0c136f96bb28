#include "autotune.h"

#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>

namespace shoehorn {

namespace {

bool better(const TuneMeasurement &a, const TuneMeasurement &b)
{
    // Generation speed is what a chat feels; prompt speed breaks ties. A configuration that
    // lowers answer quality (q4_0 K) is shown, flagged, but never chosen over one that does not.
    if (!b.ok)
        return a.ok;
    if (!a.ok)
        return false;
    if (a.candidate.lowerQuality != b.candidate.lowerQuality)
        return !a.candidate.lowerQuality;
    if (a.generate.mean != b.generate.mean)
        return a.generate.mean > b.generate.mean;
    return a.prompt.mean > b.prompt.mean;
}

TuneCandidate candidate(const PlanSettings &s, bool chatPath = false)
{
    TuneCandidate c;
    c.settings = s;
    c.label = AutoTuner::label(s) + (chatPath ? " (chat path)" : "");
    c.lowerQuality = s.context.typeK == "q4_0";
    c.chatPath = chatPath;
    return c;
}

} // namespace

AutoTuner::AutoTuner(ModelInfo model, TuneRequest request) : m_model(std::move(model)), m_request(std::move(request))
{
    // The grid is measured without speculation (its raw decodes would not run it anyway); the
    // speculation axis puts each choice on top of the best of it.
    m_request.base.context.speculation = SpeculationSettings{};
    m_request.base.load.mtpLayers = false;
}

std::string AutoTuner::label(const PlanSettings &s)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, "-ngl %d --n-cpu-moe %d -t %d -ub %u -fa %s -ctk %s -ctv %s", s.load.gpuLayers,
                  s.load.cpuMoeLayers, s.context.threads, s.context.ubatchSize,
                  flashAttentionName(s.context.flashAttention), s.context.typeK.c_str(), s.context.typeV.c_str());
    std::string out = buf;
    if (!s.load.devices.empty())
        out += " --device " + deviceListText(s.load.devices);
    else if (!s.load.backend.empty())
        out += " --backend " + s.load.backend;
    const SpeculationSettings &spec = s.context.speculation;
    if (spec.on()) {
        out += " --spec-type " + spec.running();
        if (spec.draftMax > 0)
            out += " --spec-draft-n-max " + std::to_string(spec.draftMax);
        if (!spec.draftModel.empty())
            out += " -md " + spec.draftModel.substr(spec.draftModel.find_last_of('/') + 1);
    }
    return out;
}

std::vector<SpeculationSettings> speculationChoices(const ModelInfo &m, const std::string &draftModel)
{
    std::vector<SpeculationSettings> out;
    for (int n = 1; m.mtpLayers > 0 && n <= 4; ++n) {
        SpeculationSettings s;
        s.types = "draft-mtp";
        s.draftMax = n;
        out.push_back(s);
    }
    SpeculationSettings ngram;
    ngram.types = "ngram-simple";
    out.push_back(ngram);
    if (!draftModel.empty()) {
        SpeculationSettings d;
        d.draftModel = draftModel;
        out.push_back(d);
    }
    return out;
}

bool fasterBeyondNoise(const Stats &a, const Stats &b)
{
    if (a.mean <= 0 || b.mean <= 0)
        return false;
    const auto se = [](const Stats &x) { return x.samples > 0 ? x.stddev / std::sqrt(double(x.samples)) : 0.0; };
    const double noise = 2 * std::sqrt(se(a) * se(a) + se(b) * se(b));
    return a.mean - b.mean > std::max(noise, 0.02 * b.mean);
}

bool AutoTuner::fits(const PlanSettings &s) const
{
    const MemoryPlan p = analyticPlan(m_model, s, m_request.target);
    for (const auto &g : p.gpus)
        if (g.use.total() + m_request.marginBytes > g.available)
            return false;
    return p.ram.use.total() <= p.ram.available;
}

PlanSettings AutoTuner::placement() const
{
    FitRequest r;
    r.settings = m_request.base;
    r.marginBytes = m_request.marginBytes;
    r.locks.contextSize = true; // tuning is for the context the user chose
    const FitResult f = autoFit(m_model, r, m_request.target);
    PlanSettings s = f.ok() ? f.settings : m_request.base;
    if (s.load.gpuLayers < 0)
        s.load.gpuLayers = static_cast<int>(m_model.layerCount) + 1;
    return s;
}

std::vector<int> AutoTuner::threadChoices() const
{
    if (!m_request.threads.empty())
        return m_request.threads;
    const int cores = std::max(1, m_request.target.physicalCores ? m_request.target.physicalCores : physicalCoreCount());
    std::vector<int> t{cores};
    if (cores > 1)
        t.push_back(cores - 1);
    return t;
}

std::vector<PlanSettings> AutoTuner::placements() const
{
    // Auto-fit's placement and its safer neighbours: experts of a few more layers in RAM, a few
    // whole layers fewer on the GPU. On the CPU alone there is one placement.
    const PlanSettings fit = placement();
    std::vector<PlanSettings> out{fit};
    if (m_request.target.gpus.empty() || fit.load.devices == std::vector<std::string>{"none"})
        return out; // the fit's CPU alone (-dev none) too: its neighbours are the same configuration
    const int nLayer = static_cast<int>(m_model.layerCount);
    const int stride = std::max(1, nLayer / 12);
    if (m_model.isMoe() && fit.load.cpuMoeLayers + stride <= nLayer) {
        PlanSettings moreExperts = fit;
        moreExperts.load.cpuMoeLayers += stride;
        out.push_back(moreExperts);
    }
    if (fit.load.gpuLayers - stride > 0) {
        PlanSettings fewerLayers = fit;
        fewerLayers.load.gpuLayers -= stride;
        out.push_back(fewerLayers);
    }
    return out;
}

std::vector<TuneCandidate> AutoTuner::grid() const
{
    std::vector<TuneCandidate> out;
    std::vector<std::string> kv = m_request.kvTypes;
    if (m_request.includeQ4K)
        kv.push_back("q4_0");
    for (const PlanSettings &place : placements())
    for (int t : threadChoices())
        for (uint32_t ub : m_request.ubatch)
            for (FlashAttention fa : m_request.flash)
                for (const auto &k : kv) {
                    PlanSettings s = place;
                    s.context.threads = t;
                    s.context.ubatchSize = ub;
                    s.context.flashAttention = fa;
                    s.context.typeK = k;
                    // q4_0 is offered for K only; V stays at q8_0 there (its quality cost is
                    // in K, and a quantized V needs flash attention anyway).
                    s.context.typeV = k == "q4_0" ? "q8_0" : k;
                    if (validate(s))
                        continue; // e.g. a quantized V cache without flash attention: llama.cpp refuses it
                    if (k != "f16" && (m_model.headSizeK % 32 != 0 || m_model.headSizeV % 32 != 0))
                        continue;
                    if (fits(s))
                        out.push_back(candidate(s));
                }
    return out;
}

TuneResult AutoTuner::sweep(const MeasureFn &measure, const std::atomic<bool> *cancel) const
{
    TuneResult r;
    for (const auto &c : grid()) {
        if (cancel && cancel->load()) {
            r.cancelled = true;
            break;
        }
        r.measurements.push_back(measure(c));
        if (r.best < 0 || better(r.measurements.back(), r.measurements[static_cast<size_t>(r.best)]))
            r.best = static_cast<int>(r.measurements.size()) - 1;
    }
    return r;
}

TuneResult AutoTuner::tune(const MeasureFn &measure, const std::atomic<bool> *cancel,
                           const std::function<void(int, int)> &progress) const
{
    TuneResult r;
    const std::vector<TuneCandidate> all = grid();
    if (all.empty())
        return r;
    std::map<std::string, size_t> measured; // label -> index in r.measurements
    auto run = [&](const TuneCandidate &c) -> const TuneMeasurement & {
        auto it = measured.find(c.label);
        if (it != measured.end())
            return r.measurements[it->second];
        r.measurements.push_back(measure(c));
        measured[c.label] = r.measurements.size() - 1;
        if (progress)
            progress(static_cast<int>(r.measurements.size()), static_cast<int>(all.size()));
        return r.measurements.back();
    };
    // Dimensions, in the order that matters most on small machines.
    using Setter = std::function<bool(const PlanSettings &, const PlanSettings &)>;
    auto samePlacement = [](const PlanSettings &a, const PlanSettings &b) {
        return a.load.gpuLayers == b.load.gpuLayers && a.load.cpuMoeLayers == b.load.cpuMoeLayers;
    };
    const std::vector<Setter> sameExcept = {
        [](const PlanSettings &a, const PlanSettings &b) { // placement
            return a.context.threads == b.context.threads && a.context.ubatchSize == b.context.ubatchSize &&
                   a.context.flashAttention == b.context.flashAttention && a.context.typeK == b.context.typeK;
        },
        [samePlacement](const PlanSettings &a, const PlanSettings &b) { // threads
            return samePlacement(a, b) &&
                   a.context.ubatchSize == b.context.ubatchSize && a.context.flashAttention == b.context.flashAttention &&
                   a.context.typeK == b.context.typeK;
        },
        [samePlacement](const PlanSettings &a, const PlanSettings &b) { // flash attention + KV type go together
            return samePlacement(a, b) && a.context.threads == b.context.threads &&
                   a.context.ubatchSize == b.context.ubatchSize;
        },
        [samePlacement](const PlanSettings &a, const PlanSettings &b) { // ubatch
            return samePlacement(a, b) && a.context.threads == b.context.threads &&
                   a.context.flashAttention == b.context.flashAttention && a.context.typeK == b.context.typeK;
        },
    };
    // Start from the first grid point with the user's own KV type if there is one.
    size_t start = 0;
    for (size_t i = 0; i < all.size(); ++i)
        if (all[i].settings.context.typeK == m_request.base.context.typeK) {
            start = i;
            break;
        }
    TuneMeasurement best = run(all[start]);
    for (int pass = 0; pass < 2; ++pass) {
        bool improved = false;
        for (const auto &same : sameExcept) {
            const PlanSettings current = best.candidate.settings;
            for (const auto &c : all) {
                if (cancel && cancel->load()) {
                    r.cancelled = true;
                    break;
                }
                if (!same(c.settings, current) || c.label == best.candidate.label)
                    continue;
                const TuneMeasurement &m = run(c);
                if (better(m, best)) {
                    best = m;
                    improved = true;
                }
            }
        }
        if (!improved || r.cancelled)
            break;
    }
    if (!r.cancelled)
        tuneBackend(r, best, run, cancel);
    if (!r.cancelled)
        tuneSpeculation(r, best, run, cancel);
    for (size_t i = 0; i < r.measurements.size(); ++i)
        if (r.measurements[i].candidate.label == best.candidate.label)
            r.best = static_cast<int>(i);
    return r;
}

// For cards two backends see (CUDA and Vulkan on an NVIDIA card): the best configuration through
// each other backend that fits (Vulkan may leave bigger weights in RAM), against the best measured
// once more afterwards (drift); another backend wins only beyond the noise.
void AutoTuner::tuneBackend(TuneResult &r, TuneMeasurement &best,
                            const std::function<const TuneMeasurement &(const TuneCandidate &)> &run,
                            const std::atomic<bool> *cancel) const
{
    const std::vector<std::string> backends = backendChoices(m_request.target.gpus);
    if (backends.size() < 2 || !best.ok || !best.candidate.settings.load.devices.empty())
        return;
    const std::string &current = best.candidate.settings.load.backend;
    std::optional<TuneMeasurement> fastest;
    for (const std::string &b : backends) {
        const std::string backend = b == backends.front() ? std::string() : b; // the default: as stored
        if (backend == current)
            continue;
        if (cancel && cancel->load()) {
            r.cancelled = true;
            return;
        }
        PlanSettings s = best.candidate.settings;
        s.load.backend = backend;
        if (!fits(s))
            continue;
        const TuneMeasurement &m = run(candidate(s));
        if (m.ok && (!fastest || m.generate.mean > fastest->generate.mean))
            fastest = m;
    }
    if (!fastest)
        return;
    TuneCandidate again = best.candidate;
    again.label += ", again";
    TuneMeasurement kept = best;
    if (const TuneMeasurement &m = run(again); m.ok && m.generate.mean > kept.generate.mean)
        kept = m;
    if (fasterBeyondNoise(fastest->generate, kept.generate))
        best = *fastest;
}

// The best configuration without speculation, measured on the chat path, against each
// speculation choice on top of it that fits: the fastest beyond the noise wins, else none.
void AutoTuner::tuneSpeculation(TuneResult &r, TuneMeasurement &best,
                                const std::function<const TuneMeasurement &(const TuneCandidate &)> &run,
                                const std::atomic<bool> *cancel) const
{
    if (m_request.speculation.empty() || !best.ok)
        return;
    PlanSettings plain = best.candidate.settings;
    plain.context.speculation = SpeculationSettings{};
    plain.load.mtpLayers = false;
    const TuneCandidate offCandidate = candidate(plain, true);
    TuneMeasurement off = run(offCandidate);
    if (!off.ok)
        return;
    std::optional<TuneMeasurement> fastest;
    for (const SpeculationSettings &choice : m_request.speculation) {
        if (cancel && cancel->load()) {
            r.cancelled = true;
            return;
        }
        PlanSettings s = plain;
        s.context.speculation = choice;
        s.load.mtpLayers = choice.mtp();
        if (validate(s) || !fits(s))
            continue;
        const TuneMeasurement &m = run(candidate(s, true));
        if (m.ok && (!fastest || m.generate.mean > fastest->generate.mean))
            fastest = m;
    }
    if (!fastest)
        return;
    // Without speculation once more, after the choices: a machine that drifts over the minutes
    // the choices took (warming caches, clocks, another program) must not pass for a gain.
    TuneCandidate again = offCandidate;
    again.label += ", again";
    if (const TuneMeasurement &m = run(again); m.ok && m.generate.mean > off.generate.mean)
        off = m;
    if (fasterBeyondNoise(fastest->generate, off.generate))
        best = *fastest; // else the best stays the one measured like every other (raw generation)
}

std::vector<TuneStep> AutoTuner::story(const MeasureFn &measure, const std::atomic<bool> *cancel,
                                       const TuneMeasurement *best) const
{
    std::vector<TuneStep> steps;
    const PlanSettings place = placement();
    const int cores = threadChoices().front();
    PlanSettings s = m_request.base;
    s.load.gpuLayers = 0;
    s.load.cpuMoeLayers = 0;
    s.context.typeK = s.context.typeV = "f16";
    s.context.flashAttention = FlashAttention::Off;
    s.context.threads = std::max(1, cores / 2); // the untuned default of the guides: few threads
    // `measured`: a trial tune() already ran (the best), not measured again.
    auto add = [&](const std::string &name, const TuneCandidate &c, const TuneMeasurement *measured = nullptr) {
        if (cancel && cancel->load())
            return;
        if (!steps.empty() && steps.back().measurement.candidate.label == c.label)
            return; // the step changes nothing here
        TuneStep step;
        step.name = name;
        step.measurement = measured ? *measured : measure(c);
        const double base = steps.empty() ? step.measurement.generate.mean : steps.front().measurement.generate.mean;
        step.speedup = base > 0 ? step.measurement.generate.mean / base : 1.0;
        steps.push_back(step);
    };
    add("baseline", candidate(s));
    // + GPU layers: as many whole layers as fit with f16 KV and no expert placement.
    PlanSettings gpu = s;
    for (int n = place.load.gpuLayers; n >= 0; --n) {
        gpu.load.gpuLayers = n;
        if (fits(gpu))
            break;
    }
    add("GPU layers", candidate(gpu));
    // + q8_0 KV (with flash attention, which a quantized V cache needs).
    PlanSettings q8 = gpu;
    if (m_model.headSizeK % 32 == 0 && m_model.headSizeV % 32 == 0) {
        q8.context.typeK = q8.context.typeV = "q8_0";
        q8.context.flashAttention = FlashAttention::On;
    }
    add("q8_0 KV", candidate(q8));
    // + more layers: auto-fit's placement (experts to RAM before whole layers).
    PlanSettings more = q8;
    more.load = place.load;
    if (!fits(more))
        more = q8;
    add("more layers", candidate(more));
    // + flash attention and all physical cores.
    PlanSettings full = more;
    full.context.flashAttention = FlashAttention::On;
    full.context.threads = cores;
    add("flash attention + threads", candidate(full));
    if (best && best->ok && !best->candidate.chatPath)
        add("best", best->candidate, best);
    return steps;
}

BenchMeasurer::BenchMeasurer(std::string path, int promptTokens, int generateTokens, EarlyStop stop,
                             std::shared_ptr<Model> loaded)
    : m_path(std::move(path)), m_prompt(promptTokens), m_generate(generateTokens), m_stop(stop),
      m_model(std::move(loaded))
{
}

TuneMeasurement BenchMeasurer::operator()(const TuneCandidate &c)
{
    TuneMeasurement m;
    m.candidate = c;
    // Weights are loaded again only when their placement changes.
    if (!m_model || !(m_model->settings().gpuLayers == c.settings.load.gpuLayers &&
                      m_model->settings().cpuMoeLayers == c.settings.load.cpuMoeLayers &&
                      m_model->settings().loadMode == c.settings.load.loadMode &&
                      m_model->settings().mtpLayers == c.settings.load.mtpLayers &&
                      m_model->settings().devices == c.settings.load.devices &&
                      m_model->settings().backend == c.settings.load.backend)) {
        m_model.reset();
        auto loaded = Model::load(m_path, c.settings.load);
        ++m_loads;
        if (!loaded) {
            m.error = loaded.error();
            return m;
        }
        m_model = *loaded;
    }
    BenchRequest r;
    r.promptTokens = m_prompt;
    r.generateTokens = m_generate;
    r.chatPath = c.chatPath;
    r.stop = m_stop;
    // Whole answers only: speculation's speed is the chat's (drafts verified in batches).
    if (c.chatPath)
        r.promptTokens = 0;
    r.rawGeneration = !c.chatPath;
    auto res = runBenchmark(m_model, c.settings.context, r);
    if (!res) {
        m.error = res.error();
        return m;
    }
    m.prompt = res->promptTps;
    m.generate = c.chatPath ? res->chatTps : res->generateTps;
    m.ok = !c.chatPath || m.generate.mean > 0; // a chat answer can end before its first token
    if (!m.ok)
        m.error = {ErrorCode::DecodeFailed, "no answer was generated"};
    return m;
}

} // namespace shoehorn
