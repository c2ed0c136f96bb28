#include "cmdbench.h"

#include "autotune.h"
#include "benchmark.h"
#include "clioutput.h"
#include "hardware.h"
#include "model.h"
#include "validate.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <memory>

namespace shoehorn::cli {

std::string statText(const Stats &s)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f ± %.2f", s.mean, s.stddev);
    return buf;
}

namespace {

Result<BenchResult> ourBench(const Args &a, int reps)
{
    auto model = Model::load(a.model, a.load);
    if (!model)
        return model.error();
    BenchRequest r;
    r.promptTokens = a.benchPrompt;
    r.generateTokens = a.benchGenerate;
    r.repetitions = reps;
    return runBenchmark(*model, a.context, r);
}

} // namespace

int readyToMeasure(const Args &a)
{
    auto info = readHeader(a);
    if (!info)
        return failFor(a.model, info.error());
    if (Error e = validate(*info, a.context))
        return fail(e);
    return checkBeforeLoad(a.checkFile, a.model, {}, a.context.speculation.draftModel);
}

int cmdBench(const Args &a)
{
    if (const int rc = readyToMeasure(a))
        return rc;
    auto r = ourBench(a, a.benchReps);
    if (!r)
        return fail(r.error());
    const std::string pp = "pp" + std::to_string(a.benchPrompt), tg = "tg" + std::to_string(a.benchGenerate);
    if (a.output == "json") {
        nlohmann::ordered_json j = nlohmann::ordered_json::array();
        // One row per test, with llama-bench's field names where it has them.
        auto row = [&](const std::string &test, const Stats &s) {
            j.push_back({{"model_filename", a.model},
                         {"test", test},
                         {"avg_ts", s.mean},
                         {"stddev_ts", s.stddev},
                         {"samples", s.samples}});
        };
        row(pp, r->promptTps);
        row(tg, r->generateTps);
        row("chat " + tg, r->chatTps);
        printJson(j);
    } else if (a.output == "csv") {
        std::printf("test,avg_ts,stddev_ts\n%s,%.3f,%.3f\n%s,%.3f,%.3f\nchat %s,%.3f,%.3f\n", pp.c_str(),
                    r->promptTps.mean, r->promptTps.stddev, tg.c_str(), r->generateTps.mean, r->generateTps.stddev,
                    tg.c_str(), r->chatTps.mean, r->chatTps.stddev);
    } else {
        std::printf("| test | t/s |\n| --- | ---: |\n| %s | %s |\n| %s | %s |\n| chat %s | %s |\n", pp.c_str(),
                    statText(r->promptTps).c_str(), tg.c_str(), statText(r->generateTps).c_str(), tg.c_str(),
                    statText(r->chatTps).c_str());
    }
    return 0;
}

int cmdTune(const Args &a)
{
    if (const int rc = readyToMeasure(a))
        return rc;
    auto info = readHeader(a);
    if (!info)
        return failFor(a.model, info.error());
    TuneRequest r;
    r.base.load = a.load;
    r.base.context = a.context;
    r.target = machineTarget(a);
    r.marginBytes = a.marginMiB * MiB;
    r.promptTokens = a.benchPrompt;
    r.generateTokens = a.benchGenerate;
    // Speculation as an axis: the model's MTP layer, n-gram, and the draft model given with -md.
    r.speculation = speculationChoices(*info, a.context.speculation.draftModel);
    auto draft = draftModelInfo(a.context.speculation);
    if (!draft)
        return fail(draft.error());
    r.base.draftModel = *draft;
    if (a.context.contextSize > 0) // 0: the tuner picks the context itself
        if (Error e = validateMemory(*info, a.context, r.target))
            return fail(e);
    AutoTuner tuner(*info, r);
    BenchMeasurer measure(a.model, r.promptTokens, r.generateTokens, r.stop);
    // One line rewritten on a terminal; one line per measurement into a file or a pipe.
    const bool terminal = ::isatty(STDERR_FILENO);
    const TuneResult t = tuner.tune(std::ref(measure), nullptr, [terminal](int done, int total) {
        std::fprintf(stderr, terminal ? "\rmeasured %d (grid %d)" : "measured %d (grid %d)\n", done, total);
    });
    if (terminal)
        std::fprintf(stderr, "\n");
    std::printf("| configuration | pp t/s | tg t/s | |\n| --- | ---: | ---: | --- |\n");
    for (size_t i = 0; i < t.measurements.size(); ++i) {
        const auto &m = t.measurements[i];
        std::printf("| %s | %s | %s | %s%s |\n", m.candidate.label.c_str(),
                    m.candidate.chatPath ? "" : statText(m.prompt).c_str(), statText(m.generate).c_str(),
                    static_cast<int>(i) == t.best ? "best" : "",
                    m.candidate.lowerQuality ? " lower quality (q4_0 K)" : (m.ok ? "" : errorMessage(m.error).c_str()));
    }
    if (t.best < 0) { // nothing to tell a story from
        std::fprintf(stderr, "error: %s\n",
                     t.measurements.empty()
                         ? "no configuration fits this machine with these settings (plan shows what each needs)"
                         : "no configuration could be measured (the reasons are in the table)");
        return 1;
    }
    std::printf("\n| step | configuration | tg t/s | speedup |\n| --- | --- | ---: | ---: |\n");
    for (const auto &s : tuner.story(std::ref(measure), nullptr, &t.measurements[size_t(t.best)]))
        std::printf("| %s | %s | %.2f | %.2fx |\n", s.name.c_str(), s.measurement.candidate.label.c_str(),
                    s.measurement.generate.mean, s.speedup);
    std::printf("\nweights loaded %d time(s)\n", measure.loads());
    return 0;
}

} // namespace shoehorn::cli
