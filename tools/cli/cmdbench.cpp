#include "cmdbench.h"

#include "autotune.h"
#include "benchmark.h"
#include "clioutput.h"
#include "hardware.h"
#include "model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace shoehorn::cli {

namespace {

std::string statText(const Stats &s)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f ± %.2f", s.mean, s.stddev);
    return buf;
}

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

std::string selfDirectory()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}

struct LlamaBench {
    double pp = 0, ppSd = 0, tg = 0, tgSd = 0;
};

std::string shellQuote(const std::string &s)
{
    std::string q;
    q.reserve(s.size() + 2);
    q.push_back('\'');
    for (char c : s) {
        if (c == '\'')
            q.append("'\\''");
        else
            q.push_back(c);
    }
    q.push_back('\'');
    return q;
}

std::string readAll(const std::string &command)
{
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
    std::string out;
    if (!pipe)
        return out;
    char buf[4096];
    size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, pipe.get())) > 0)
        out.append(buf, n);
    return out;
}

// Our engine measured like llama-bench is: in a fresh process of its own (`shoehorn-cli bench`),
// so neither side carries the heap, threads or caches of earlier rounds.
Result<BenchResult> ourBenchProcess(const Args &a, int reps)
{
    std::string cmd = shellQuote(selfDirectory() + "/shoehorn-cli") + " bench";
    for (const auto &arg : a.raw) {
        cmd.push_back(' ');
        cmd.append(shellQuote(arg));
    }
    cmd.append(" -r ").append(std::to_string(reps)).append(" -o json 2>/dev/null");
    const auto j = nlohmann::json::parse(readAll(cmd), nullptr, false);
    if (!j.is_array() || j.size() < 3)
        return Error{ErrorCode::LoadFailed, "shoehorn-cli bench gave no JSON: " + cmd};
    BenchResult r;
    auto stats = [](const nlohmann::json &row) {
        Stats s;
        s.mean = row.value("avg_ts", 0.0);
        s.stddev = row.value("stddev_ts", 0.0);
        s.samples = row.value("samples", 0);
        return s;
    };
    r.promptTps = stats(j[0]);
    r.generateTps = stats(j[1]);
    r.chatTps = stats(j[2]);
    return r;
}

// Runs llama.cpp's own llama-bench with the same settings and reads its JSON.
Result<LlamaBench> llamaBench(const Args &a, int reps)
{
    const std::string bin = selfDirectory() + "/llama-bench";
    if (!std::filesystem::exists(bin))
        return Error{ErrorCode::FileNotFound, bin + " (it is built with Shoehorn: cmake --build build)"};
    std::ostringstream cmd;
    cmd << '"' << bin << "\" -m \"" << a.model << "\" -p " << a.benchPrompt << " -n " << a.benchGenerate << " -r "
        << reps << " -ngl " << (a.load.gpuLayers < 0 ? 99 : a.load.gpuLayers) << " -ncmoe " << a.load.cpuMoeLayers
        << " -b " << a.context.batchSize << " -ub " << a.context.ubatchSize << " -ctk " << a.context.typeK << " -ctv "
        << a.context.typeV << " -fa " << (a.context.flashAttention == FlashAttention::Off ? 0 : 1)
        << " -t " << (a.context.threads > 0 ? a.context.threads : physicalCoreCount())
        << (a.load.loadMode == LoadMode::NoMmap ? " -mmp 0" : "") << " -o json 2>/dev/null";
    const auto j = nlohmann::json::parse(readAll(cmd.str()), nullptr, false);
    if (!j.is_array())
        return Error{ErrorCode::LoadFailed, "llama-bench gave no JSON: " + cmd.str()};
    LlamaBench r;
    for (const auto &t : j) {
        const bool pp = t.value("n_prompt", 0) > 0 && t.value("n_gen", 0) == 0;
        (pp ? r.pp : r.tg) = t.value("avg_ts", 0.0);
        (pp ? r.ppSd : r.tgSd) = t.value("stddev_ts", 0.0);
    }
    return r;
}

} // namespace

int cmdBench(const Args &a)
{
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

int cmdParity(const Args &a)
{
    // Alternate the two so that drift of the machine (heat, other load) hits both alike.
    std::vector<double> ourPp, ourTg, ourChat, refPp, refTg;
    // Both sides run as fresh processes, each round. Round 0 warms the page cache and the CPU
    // up and is not counted. After that the order
    // alternates (ours first, then llama-bench first), and each round gives its own ratios:
    // their median is robust against a round that a background task slowed down.
    if (a.parityRounds < 1) {
        std::fprintf(stderr, "error: --rounds must be at least 1\n");
        return 1;
    }
    std::vector<double> ppRatio, tgRatio, chatRatio;
    for (int round = 0; round <= a.parityRounds; ++round) {
        Result<BenchResult> ours = Error{ErrorCode::Cancelled, ""};
        Result<LlamaBench> ref = Error{ErrorCode::Cancelled, ""};
        if (round % 2 == 1) {
            ours = ourBenchProcess(a, a.benchReps);
            if (ours)
                ref = llamaBench(a, a.benchReps);
        } else {
            ref = llamaBench(a, a.benchReps);
            if (ref)
                ours = ourBenchProcess(a, a.benchReps);
        }
        if (!ours || !ref) {
            std::fprintf(stderr, "error: %s\n", (!ours ? ours.error() : ref.error()).detail.c_str());
            return 1;
        }
        std::printf("%s: shoehorn pp %.2f tg %.2f chat %.2f | llama-bench pp %.2f tg %.2f%s\n",
                    round == 0 ? "warm-up" : ("round " + std::to_string(round)).c_str(), ours->promptTps.mean,
                    ours->generateTps.mean, ours->chatTps.mean, ref->pp, ref->tg,
                    round == 0 ? " (not counted)" : (round % 2 == 1 ? " (ours first)" : " (llama-bench first)"));
        std::fflush(stdout);
        if (round == 0)
            continue;
        ourPp.push_back(ours->promptTps.mean);
        ourTg.push_back(ours->generateTps.mean);
        ourChat.push_back(ours->chatTps.mean);
        refPp.push_back(ref->pp);
        refTg.push_back(ref->tg);
        ppRatio.push_back(ref->pp > 0 ? ours->promptTps.mean / ref->pp : 0);
        tgRatio.push_back(ref->tg > 0 ? ours->generateTps.mean / ref->tg : 0);
        chatRatio.push_back(ref->tg > 0 ? ours->chatTps.mean / ref->tg : 0);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const size_t n = v.size();
        return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
    };
    auto range = [](const std::vector<double> &v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f–%.3f", *std::min_element(v.begin(), v.end()),
                      *std::max_element(v.begin(), v.end()));
        return std::string(buf);
    };
    const Stats pp = summarize(ourPp), tg = summarize(ourTg), chat = summarize(ourChat);
    const Stats rpp = summarize(refPp), rtg = summarize(refTg);
    std::printf("\n| test | shoehorn t/s | llama-bench t/s | ratio of means | median round ratio | rounds |\n"
                "| --- | ---: | ---: | ---: | ---: | --- |\n");
    std::printf("| pp%d | %s | %s | %.3f | %.3f | %s |\n", a.benchPrompt, statText(pp).c_str(), statText(rpp).c_str(),
                rpp.mean > 0 ? pp.mean / rpp.mean : 0.0, median(ppRatio), range(ppRatio).c_str());
    std::printf("| tg%d | %s | %s | %.3f | %.3f | %s |\n", a.benchGenerate, statText(tg).c_str(),
                statText(rtg).c_str(), rtg.mean > 0 ? tg.mean / rtg.mean : 0.0, median(tgRatio),
                range(tgRatio).c_str());
    std::printf("| chat path vs tg%d | %s | %s | %.3f | %.3f | %s |\n", a.benchGenerate, statText(chat).c_str(),
                statText(rtg).c_str(), rtg.mean > 0 ? chat.mean / rtg.mean : 0.0, median(chatRatio),
                range(chatRatio).c_str());
    return 0;
}

int cmdTune(const Args &a)
{
    auto info = inspectModel(a.model);
    if (!info) {
        std::fprintf(stderr, "error: %s\n", info.error().detail.c_str());
        return 1;
    }
    TuneRequest r;
    r.base.load = a.load;
    r.base.context = a.context;
    r.target = targetFromHardware(probeHardware(), a.vramBudgetMiB * MiB);
    r.marginBytes = a.marginMiB * MiB;
    r.promptTokens = a.benchPrompt;
    r.generateTokens = a.benchGenerate;
    AutoTuner tuner(*info, r);
    BenchMeasurer measure(a.model, r.promptTokens, r.generateTokens, r.stop);
    const TuneResult t = tuner.tune(std::ref(measure), nullptr, [](int done, int total) {
        std::fprintf(stderr, "\rmeasured %d (grid %d)", done, total);
    });
    std::fprintf(stderr, "\n");
    std::printf("| configuration | pp t/s | tg t/s | |\n| --- | ---: | ---: | --- |\n");
    for (size_t i = 0; i < t.measurements.size(); ++i) {
        const auto &m = t.measurements[i];
        std::printf("| %s | %s | %s | %s%s |\n", m.candidate.label.c_str(), statText(m.prompt).c_str(),
                    statText(m.generate).c_str(), static_cast<int>(i) == t.best ? "best" : "",
                    m.candidate.lowerQuality ? " lower quality (q4_0 K)" : (m.ok ? "" : m.error.c_str()));
    }
    std::printf("\n| step | configuration | tg t/s | speedup |\n| --- | --- | ---: | ---: |\n");
    for (const auto &s : tuner.story(std::ref(measure)))
        std::printf("| %s | %s | %.2f | %.2fx |\n", s.name.c_str(), s.measurement.candidate.label.c_str(),
                    s.measurement.generate.mean, s.speedup);
    std::printf("\nweights loaded %d time(s)\n", measure.loads());
    return t.best >= 0 ? 0 : 1;
}

} // namespace shoehorn::cli
