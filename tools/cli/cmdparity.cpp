// shoehorn-cli parity: our engine against llama.cpp's llama-bench, both as fresh processes.
#include "cmdbench.h"

#include "clioutput.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace shoehorn::cli {

namespace {

struct LlamaBench {
    double pp = 0, ppSd = 0, tg = 0, tgSd = 0;
};

struct CommandOutput {
    std::string out;
    std::string err;
    int status = -1; // exit status; -1 when the command did not exit normally
};

std::string selfDirectory()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : exe.parent_path().string();
}

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

// Runs a shell command; stdout is the result, stderr is kept (in a temporary file) so that a
// failure can say what the command itself reported.
CommandOutput runCommand(const std::string &command)
{
    CommandOutput r;
    std::string errPath = (std::filesystem::temp_directory_path() / "shoehorn-cli-XXXXXX").string();
    const int fd = mkstemp(errPath.data());
    const std::string full = command + (fd >= 0 ? " 2>" + shellQuote(errPath) : std::string(" 2>/dev/null"));
    if (FILE *pipe = popen(full.c_str(), "r")) {
        char buf[4096];
        size_t n = 0;
        while ((n = fread(buf, 1, sizeof buf, pipe)) > 0)
            r.out.append(buf, n);
        const int status = pclose(pipe);
        r.status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    if (fd >= 0) {
        char buf[4096];
        ssize_t n = 0;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            r.err.append(buf, static_cast<size_t>(n));
        close(fd);
        unlink(errPath.c_str());
    }
    return r;
}

// Why a command gave no usable JSON: its exit status, the end of its stderr and the command.
std::string commandFailure(const std::string &what, const std::string &command, const CommandOutput &r)
{
    std::vector<std::string> lines;
    std::istringstream in(r.err);
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            lines.push_back(line);
    std::string text = what + " gave no JSON (exit status " + std::to_string(r.status) + ")";
    const size_t first = lines.size() > 3 ? lines.size() - 3 : 0;
    for (size_t i = first; i < lines.size(); ++i)
        text += (i == first ? ": " : " | ") + lines[i];
    return text + "; command: " + command;
}

// Our engine measured like llama-bench is: in a fresh process of its own (`shoehorn-cli bench`),
// so neither side carries the heap, threads or caches of earlier rounds.
Result<BenchResult> ourBenchProcess(const Args &a, int reps)
{
    std::string cmd = shellQuote(selfDirectory() + "/shoehorn-cli") + " bench";
    for (size_t i = 0; i < a.raw.size(); ++i) {
        if (a.raw[i] == "--rounds" || a.raw[i] == "--llama-bench") { // parity's own, with their values
            ++i;
            continue;
        }
        cmd.append(" ").append(shellQuote(a.raw[i]));
    }
    cmd.append(" -r ").append(std::to_string(reps)).append(" -o json");
    const CommandOutput out = runCommand(cmd);
    const auto j = nlohmann::json::parse(out.out, nullptr, false);
    if (!j.is_array() || j.size() < 3)
        return Error{ErrorCode::LoadFailed, commandFailure("shoehorn-cli bench", cmd, out)};
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

bool isExecutableFile(const std::string &path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// llama-bench from the same llama.cpp build is built next to shoehorn-cli (build/bin); an
// installed Shoehorn has none, so PATH is tried too. --llama-bench overrides both.
Result<std::string> findLlamaBench(const Args &a)
{
    if (!a.llamaBench.empty()) {
        if (isExecutableFile(a.llamaBench))
            return a.llamaBench;
        return Error{ErrorCode::FileNotFound, "parity needs llama.cpp's llama-bench, but --llama-bench " +
                                                  a.llamaBench + " is not an executable file"};
    }
    std::vector<std::string> looked{selfDirectory() + "/llama-bench"};
    std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
    for (std::string dir; std::getline(path, dir, ':');) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/llama-bench";
        if (std::find(looked.begin(), looked.end(), candidate) == looked.end())
            looked.push_back(candidate);
    }
    for (const auto &candidate : looked) {
        if (!isExecutableFile(candidate))
            continue;
        if (candidate != looked.front())
            std::fprintf(stderr, "note: using %s from PATH; the comparison is fair only if it was built from "
                                 "the same llama.cpp as shoehorn-cli\n", candidate.c_str());
        return candidate;
    }
    std::string list;
    for (const auto &candidate : looked)
        list += (list.empty() ? "" : ", ") + candidate;
    return Error{ErrorCode::FileNotFound,
                 "parity needs llama.cpp's llama-bench from the same llama.cpp build as shoehorn-cli; looked in " +
                     list + "; build it with tools/dev.sh (it is built into build/bin next to shoehorn-cli) "
                            "or pass --llama-bench PATH"};
}

// llama-bench's lists are separated by '/'.
template <typename T>
std::string slashList(const std::vector<T> &values)
{
    std::ostringstream out;
    for (size_t i = 0; i < values.size(); ++i)
        out << (i ? "/" : "") << values[i];
    return out.str();
}

// Where the weights go and how they load, in llama-bench's words: the same placement as ours.
std::string loadFlags(const Args &a)
{
    std::ostringstream f;
    f << " -ngl " << (a.load.gpuLayers < 0 ? 99 : a.load.gpuLayers) << " -ncmoe " << a.load.cpuMoeLayers;
    if (!a.rpc.empty()) { // the same RPC workers (llama-bench connects to them itself), before -dev names them
        std::string list;
        for (const auto &e : a.rpc)
            list += (list.empty() ? "" : ",") + e;
        f << " --rpc " << shellQuote(list);
    }
    if (a.load.mainGpu != 0)
        f << " -mg " << a.load.mainGpu;
    if (!a.load.tensorSplit.empty())
        f << " -ts " << slashList(a.load.tensorSplit);
    if (!a.load.devices.empty())
        f << " -dev " << shellQuote(slashList(a.load.devices));
    f << " -lm " << (a.load.loadMode == LoadMode::NoMmap ? "none" : a.load.loadMode == LoadMode::Mlock ? "mmap+mlock" : "mmap");
    return f.str();
}

// Runs llama.cpp's own llama-bench with the same settings and reads its JSON.
Result<LlamaBench> llamaBench(const std::string &bin, const Args &a, int reps)
{
    std::ostringstream cmd;
    cmd << shellQuote(bin) << " -m " << shellQuote(a.model) << " -p " << a.benchPrompt << " -n " << a.benchGenerate
        << " -r " << reps << loadFlags(a) << " -b " << a.context.batchSize << " -ub " << a.context.ubatchSize
        << " -ctk " << a.context.typeK << " -ctv " << a.context.typeV << " -fa "
        << (a.context.flashAttention == FlashAttention::Off ? 0 : 1) << " -t "
        << (a.context.threads > 0 ? a.context.threads : physicalCoreCount()) << " -o json";
    const CommandOutput out = runCommand(cmd.str());
    const auto j = nlohmann::json::parse(out.out, nullptr, false);
    if (!j.is_array())
        return Error{ErrorCode::LoadFailed, commandFailure("llama-bench", cmd.str(), out)};
    LlamaBench r;
    for (const auto &t : j) {
        const bool pp = t.value("n_prompt", 0) > 0 && t.value("n_gen", 0) == 0;
        (pp ? r.pp : r.tg) = t.value("avg_ts", 0.0);
        (pp ? r.ppSd : r.tgSd) = t.value("stddev_ts", 0.0);
    }
    return r;
}

struct Series {
    std::vector<double> ours, ref, ratio;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

void printRow(const std::string &test, const Series &s)
{
    const Stats ours = summarize(s.ours), ref = summarize(s.ref);
    std::printf("| %s | %s | %s | %.3f | %.3f | %.3f–%.3f |\n", test.c_str(), statText(ours).c_str(),
                statText(ref).c_str(), ref.mean > 0 ? ours.mean / ref.mean : 0.0, median(s.ratio),
                *std::min_element(s.ratio.begin(), s.ratio.end()), *std::max_element(s.ratio.begin(), s.ratio.end()));
}

void add(Series &s, double ours, double ref)
{
    s.ours.push_back(ours);
    s.ref.push_back(ref);
    s.ratio.push_back(ref > 0 ? ours / ref : 0);
}

} // namespace

// Flags given that only our side can take: the two sides differ there, which is said.
void noteOnlyOurs(const Args &a)
{
    static const std::vector<std::string> kOnlyOurs = {
        "-c", "--ctx-size", "-tb", "--threads-batch", "--backend", "--spec-type", "-md", "--model-draft",
        "--spec-draft-model", "--spec-draft-n-max", "--spec-draft-n-min", "--spec-ngram-simple-size-n"};
    std::vector<std::string> named;
    std::string list;
    for (const std::string &f : a.given)
        if (std::find(kOnlyOurs.begin(), kOnlyOurs.end(), f) != kOnlyOurs.end() &&
            std::find(named.begin(), named.end(), f) == named.end()) {
            named.push_back(f);
            list += (list.empty() ? "" : ", ") + f;
        }
    if (!list.empty())
        std::fprintf(stderr, "note: llama-bench has no %s (its context is -p + -n tokens, one thread count, no "
                             "speculation, devices only by name): only Shoehorn's side runs with them, so the two "
                             "sides differ there\n", list.c_str());
}

int cmdParity(const Args &a)
{
    const auto bin = findLlamaBench(a);
    if (!bin)
        return fail(bin.error());
    noteOnlyOurs(a);
    // The model is read and checked here: llama-bench's failure would come back as its whole log.
    if (const int rc = readyToMeasure(a))
        return rc;
    // Both sides run as fresh processes, each round. Round 0 warms the page cache and the CPU
    // up and is not counted. After that the order alternates (ours first, then llama-bench
    // first) so that drift of the machine (heat, other load) hits both alike, and each round
    // gives its own ratios: their median is robust against a round a background task slowed.
    Series pp, tg, chat;
    for (int round = 0; round <= a.parityRounds; ++round) {
        std::optional<BenchResult> ours;
        std::optional<LlamaBench> ref;
        auto runOurs = [&]() -> std::optional<Error> {
            auto r = ourBenchProcess(a, a.benchReps);
            if (!r)
                return r.error();
            ours = *r;
            return std::nullopt;
        };
        auto runRef = [&]() -> std::optional<Error> {
            auto r = llamaBench(*bin, a, a.benchReps);
            if (!r)
                return r.error();
            ref = *r;
            return std::nullopt;
        };
        const bool oursFirst = round % 2 == 1;
        std::optional<Error> failed = oursFirst ? runOurs() : runRef();
        if (!failed)
            failed = oursFirst ? runRef() : runOurs();
        if (failed)
            return fail(*failed);
        std::printf("%s: shoehorn pp %.2f tg %.2f chat %.2f | llama-bench pp %.2f tg %.2f%s\n",
                    round == 0 ? "warm-up" : ("round " + std::to_string(round)).c_str(), ours->promptTps.mean,
                    ours->generateTps.mean, ours->chatTps.mean, ref->pp, ref->tg,
                    round == 0 ? " (not counted)" : (oursFirst ? " (ours first)" : " (llama-bench first)"));
        std::fflush(stdout);
        if (round == 0)
            continue;
        add(pp, ours->promptTps.mean, ref->pp);
        add(tg, ours->generateTps.mean, ref->tg);
        add(chat, ours->chatTps.mean, ref->tg);
    }
    std::printf("\n| test | shoehorn t/s | llama-bench t/s | ratio of means | median round ratio | rounds |\n"
                "| --- | ---: | ---: | ---: | ---: | --- |\n");
    printRow("pp" + std::to_string(a.benchPrompt), pp);
    printRow("tg" + std::to_string(a.benchGenerate), tg);
    printRow("chat path vs tg" + std::to_string(a.benchGenerate), chat);
    return 0;
}

} // namespace shoehorn::cli
