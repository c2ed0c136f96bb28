#include "cliargs.h"

#include "hardware.h"
#include "remote.h"
#include "validate.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <utility>

namespace shoehorn::cli {

namespace {

// Walks argv: the flag being parsed and the value last taken, for the error message, and the
// first thing that was wrong (a flag given last without its value, or a value outside what the
// flag takes: the text names the flag, what it takes and the value). The readers below record
// it and return a placeholder; parseEach() stops at the flag that set it.
struct Cursor {
    int argc;
    char **argv;
    int i;
    std::string flag;
    std::string value;
    std::string error;
    int valueAt = -1; // where the last value taken stands in argv

    void fail(std::string why)
    {
        if (error.empty())
            error = std::move(why);
    }
    std::string next()
    {
        if (i + 1 >= argc) {
            fail("missing value for " + flag);
            return {};
        }
        value = argv[++i];
        valueAt = i;
        return value;
    }
};

constexpr long long kIntMax = INT32_MAX;
const IntRange kContext{0, kIntMax, "0: the model's trained length"};
const IntRange kGpuLayers{-1, kIntMax, "-1, all, or more than the model has: all layers"};
const IntRange kCpuMoe{0, kIntMax, "the layer count or more: all"};
const IntRange kThreads{0, 512, "0: the physical cores"};
const IntRange kThreadsBatch{0, 512, "0: as -t"};
const IntRange kMaxTokens{-1, kIntMax, "-1: until the answer ends", true};
const IntRange kSeed{-1, 4294967295LL, "-1: random"};
const IntRange kRepetitions{1, 10000};
const IntRange kRounds{1, 1000};
const IntRange kMiB{1, 16777216, "MiB"};
const IntRange kBenchTokens{1, 1048576};

bool inRange(long long n, const IntRange &r)
{
    return n >= r.lo && n <= r.hi && !(r.skipZero && n == 0);
}

long long readLong(Cursor &c, const IntRange &r)
{
    const std::string v = c.next();
    const std::optional<long long> n = parseWholeNumber(v);
    if (!n || !inRange(*n, r)) {
        c.fail(c.flag + " takes a whole number " + rangeText(r) + ", not '" + v + "'");
        return 0;
    }
    return *n;
}

int readInt(Cursor &c, const IntRange &r)
{
    return static_cast<int>(readLong(c, r)); // every int range is within int
}

// -ngl N, or all / auto (llama.cpp's words for every layer).
int readGpuLayers(Cursor &c)
{
    const char *v = c.i + 1 < c.argc ? c.argv[c.i + 1] : "";
    if (!std::strcmp(v, "all") || !std::strcmp(v, "auto")) {
        c.next();
        return -1;
    }
    return readInt(c, kGpuLayers);
}

float readFloat(Cursor &c, const FloatRange &r)
{
    const std::string v = c.next();
    double d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    const bool inRange = r.aboveLo ? d > r.lo : d >= r.lo;
    if (ec != std::errc() || end != v.data() + v.size() || !(inRange && d <= r.hi)) {
        c.fail(c.flag + " takes a number " + rangeText(r) + ", not '" + v + "'");
        return 0;
    }
    return static_cast<float>(d);
}

// N[,N...] (or N/N, as llama.cpp's lists): each a whole number in `r`.
std::vector<uint64_t> readMiBList(Cursor &c, const IntRange &r)
{
    const std::string v = c.next();
    std::vector<uint64_t> out;
    for (const std::string &part : splitDeviceList(v)) {
        const std::optional<long long> n = parseWholeNumber(part);
        if (!n || !inRange(*n, r)) {
            c.fail(c.flag + " takes whole numbers " + rangeText(r) +
                   ", one value or one per device separated by commas, not '" + v + "'");
            return {};
        }
        out.push_back(static_cast<uint64_t>(*n));
    }
    return out;
}

// Each parse*Flag() below knows one group of flags: it returns false for a flag of another
// group; a missing or bad value is recorded in the cursor (Cursor::fail).

// Where the weights go.
bool parseLoadFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-ngl" || f == "--n-gpu-layers" || f == "--gpu-layers") {
        a.load.gpuLayers = readGpuLayers(c);
    } else if (f == "--n-cpu-moe" || f == "-ncmoe") a.load.cpuMoeLayers = readInt(c, kCpuMoe);
    else if (f == "-mg" || f == "--main-gpu") a.load.mainGpu = readInt(c, {0, 255});
    else if (f == "-ts" || f == "--tensor-split") {
        if (!parseTensorSplit(c.next(), a.load.tensorSplit))
            c.fail(f + " takes proportions per device separated by commas, e.g. 3,1 (remote machines "
                       "first, then GPUs, as `plan` lists them), not '" + c.value + "'");
        a.tensorSplitGiven = a.locks.tensorSplit = true;
    }
    else if (f == "-dev" || f == "--device") {
        if (!parseDeviceList(c.next(), a.load.devices))
            c.fail(f + " takes device names separated by commas, as `shoehorn-cli devices` lists them "
                       "(e.g. Vulkan0), or none, not '" + c.value + "'");
    } else if (f == "--backend") {
        a.load.backend = c.next();
        if (a.load.backend.empty() || a.load.backend.find_first_of("0123456789, ") != std::string::npos)
            c.fail(f + " takes a backend's name (CUDA, Vulkan, ...), not '" + c.value + "'");
    }
    else if (f == "--mlock") a.load.loadMode = LoadMode::Mlock;
    else if (f == "--no-mmap") a.load.loadMode = LoadMode::NoMmap;
    else return false;
    return true;
}

// The context: size, batches, KV cache, flash attention, threads.
bool parseContextFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-c" || f == "--ctx-size") {
        a.context.contextSize = static_cast<uint32_t>(readInt(c, kContext));
        a.contextGiven = true;
    }
    else if (f == "-b" || f == "--batch-size") a.context.batchSize = static_cast<uint32_t>(readInt(c, {1, kIntMax}));
    else if (f == "-ub" || f == "--ubatch-size") a.context.ubatchSize = static_cast<uint32_t>(readInt(c, {1, kIntMax}));
    else if (f == "-ctk" || f == "--cache-type-k") a.context.typeK = c.next();
    else if (f == "-ctv" || f == "--cache-type-v") a.context.typeV = c.next();
    else if (f == "-fa" || f == "--flash-attn") {
        if (!parseFlashAttention(c.next(), a.context.flashAttention))
            c.fail(f + " takes auto, on or off, not '" + c.value + "'");
    } else if (f == "--spec-type") a.context.speculation.types = c.next();
    else if (f == "-md" || f == "--model-draft" || f == "--spec-draft-model") a.context.speculation.draftModel = c.next();
    else if (f == "--spec-draft-n-max") a.context.speculation.draftMax = readInt(c, {1, 256});
    else if (f == "--spec-draft-n-min") a.context.speculation.draftMin = readInt(c, {0, 256});
    else if (f == "--spec-ngram-simple-size-n") a.context.speculation.ngramSizeN = readInt(c, {1, 1024});
    else if (f == "-t" || f == "--threads") a.context.threads = readInt(c, kThreads);
    else if (f == "-tb" || f == "--threads-batch") a.context.threadsBatch = readInt(c, kThreadsBatch);
    else return false;
    return true;
}

// Sampling and generation limits.
bool parseGenerationFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-n" || f == "--n-predict") {
        // Any whole number here; what each command takes is checked by checkForCommand()
        // (chat's range, or bench's token counts: 0 said in chat's words to bench before).
        a.generation.maxTokens = readInt(c, {-kIntMax, kIntMax, "chat: -1 until the answer ends; bench, parity, tune: tokens, from 1"});
        a.benchGenerate = a.generation.maxTokens;
    } else if (f == "--temp") a.generation.sampling.temperature = readFloat(c, {0, 100, false, "0: greedy"});
    else if (f == "--top-k") a.generation.sampling.topK = readInt(c, {0, kIntMax, "0: off"});
    else if (f == "--top-p") a.generation.sampling.topP = readFloat(c, {0, 1, false, "1: off"});
    else if (f == "--min-p") a.generation.sampling.minP = readFloat(c, {0, 1, false, "0: off"});
    else if (f == "--repeat-penalty") a.generation.sampling.repeatPenalty = readFloat(c, {0, 100, true, "1: off"});
    else if (f == "--presence-penalty") a.generation.sampling.presencePenalty = readFloat(c, {-2, 2, false, "0: off"});
    else if (f == "--seed" || f == "-s") a.generation.sampling.seed = static_cast<uint32_t>(readLong(c, kSeed));
    else if (f == "--reverse-prompt") {
        // An empty stop string matches at once: the answer would end before its first token.
        if (const std::string s = c.next(); !s.empty())
            a.generation.stop.push_back(s);
        else if (c.error.empty())
            c.fail("--reverse-prompt takes the text that ends the answer, not an empty string");
    } else return false;
    return true;
}

// The conversation: prompt, system prompt, thinking.
bool parsePromptFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-p" || f == "--prompt") a.prompt = c.next(); // bench: tokens, see checkForCommand()
    else if (f == "-sys" || f == "--system-prompt") a.system = c.next();
    else if (f == "--no-think") a.noThinking = true;
    else if (f == "--no-check") a.checkFile = false;
    else if (f == "--mmproj" || f == "-mm") a.mmproj = c.next();
    else if (f == "--no-mmproj-offload") a.mmprojOffload = false;
    else if (f == "--image") a.images.push_back(c.next());
    else if (f == "--rpc") {
        auto endpoints = parseEndpoints(c.next());
        if (endpoints)
            a.rpc.insert(a.rpc.end(), endpoints->begin(), endpoints->end());
        else
            c.fail(endpoints.error().detail);
    }
    else return false;
    return true;
}

// bench, parity, plan, fit and info: repetitions, output, target machine, locks.
bool parseCommandFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-r" || f == "--repetitions") a.benchReps = readInt(c, kRepetitions);
    else if (f == "--rounds") a.parityRounds = readInt(c, kRounds);
    else if (f == "-o" || f == "--output") a.output = c.next();
    else if (f == "--llama-bench") a.llamaBench = c.next();
    else if (f == "--json") a.json = true;
    else if (f == "--exact") a.exact = true;
    else if (f == "--lock-ngl") a.locks.gpuLayers = true;
    else if (f == "--lock-ncmoe") a.locks.cpuMoeLayers = true;
    else if (f == "--lock-ctx") a.locks.contextSize = true;
    else if (f == "--lock-kv") a.locks.kvType = true;
    else if (f == "-np" || f == "--parallel") {
        a.parallel = readInt(c, {1, 256});
        a.parallelGiven = true;
    }
    else if (f == "--profile") a.profile = c.next();
    else if (f == "--vram-budget") a.vramBudgetMiB = readMiBList(c, {0, kMiB.hi, "MiB; 0: no cap"});
    else if (f == "--margin") {
        a.deviceMarginMiB = readMiBList(c, {0, kMiB.hi, "MiB"});
        if (a.deviceMarginMiB.empty()) // a bad list, recorded in the cursor
            return true;
        a.marginMiB = a.deviceMarginMiB.front();
        if (a.deviceMarginMiB.size() == 1)
            a.deviceMarginMiB.clear();
    }
    else if (f == "--tensors") a.tensors = true;
    else if (f == "--progress") a.progress = true;
    else if (f == "--memory-report") a.memoryReport = true;
    else return false;
    return true;
}

// -m MODEL.gguf, as llama.cpp's tools take it (the model may also come first).
bool parseModelFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-m" || f == "--model")
        a.positional.insert(a.positional.begin(), c.next());
    else
        return false;
    return true;
}

// Every argument in turn: a flag of some group, an unknown option or a positional.
std::string parseEach(Cursor &c, Args &a)
{
    for (; c.i < c.argc; ++c.i) {
        const std::string f = c.argv[c.i];
        c.flag = f;
        if (parseLoadFlag(f, c, a) || parseContextFlag(f, c, a) || parseGenerationFlag(f, c, a) ||
            parsePromptFlag(f, c, a) || parseCommandFlag(f, c, a) || parseModelFlag(f, c, a)) {
            if (!c.error.empty())
                return c.error;
            a.given.push_back(f);
        } else if (!f.empty() && f[0] == '-' && f.size() > 1) {
            return "unknown option " + f;
        } else {
            // A word after a text flag's value lost its quotes ("-p two words"); after -c 512 it did not.
            static const char *const kTextFlags[] = {"-p", "--prompt", "-sys", "--system-prompt", "--reverse-prompt"};
            if (c.valueAt == c.i - 1 && std::any_of(std::begin(kTextFlags), std::end(kTextFlags),
                                                    [&](const char *t) { return !std::strcmp(c.argv[c.i - 2], t); }))
                a.afterValue.emplace_back(f, std::string(c.argv[c.i - 2]) + " " + c.argv[c.i - 1]);
            a.positional.push_back(f);
        }
    }
    return {};
}

// Checks what only makes sense once all flags are read, and derives the rest.
std::string finish(Args &a)
{
    if (a.output != "md" && a.output != "json" && a.output != "csv")
        return "-o takes md, json or csv, not " + a.output;
    PlanSettings s{a.load, a.context, a.parallel};
    if (const Error e = validate(s))
        return e.detail;
    if (!a.positional.empty())
        a.model = a.positional.front();
    a.generation.enableThinking = !a.noThinking;
    a.load.mtpLayers = a.context.speculation.mtp(); // the model's MTP layers are loaded only for it
    // Devices named that this machine lacks: said now, not as a plan without them. (RPC devices
    // join later: their names are checked by the load.)
    if (a.rpc.empty() && a.profile.empty())
        if (const Error e = checkDevices(a.load))
            return e.detail;
    if (!a.load.backend.empty() && a.profile.empty()) {
        const auto backends = probeHardware().backends;
        if (std::find(backends.begin(), backends.end(), a.load.backend) == backends.end()) {
            std::string there;
            for (const std::string &b : backends)
                there += (there.empty() ? "" : ", ") + b;
            return "--backend " + a.load.backend + ": no such backend here (backends: " + there + ")";
        }
    }
    if (a.rpc.empty())
        if (const Error e = checkDevicePositions(a.load, a.profile.empty() ? std::nullopt : std::optional<size_t>(1),
                                                 a.profile.empty() ? "here" : "on --profile " + a.profile))
            return e.detail;
    return {};
}

} // namespace

std::optional<long long> parseWholeNumber(const std::string &s)
{
    long long n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return n;
}

std::string rangeText(const IntRange &r)
{
    std::string s = "from " + std::to_string(r.lo) + " to " + std::to_string(r.hi);
    if (r.skipZero)
        s += " except 0";
    return r.note ? s + " (" + r.note + ")" : s;
}

std::string rangeText(const FloatRange &r)
{
    char buf[96];
    std::snprintf(buf, sizeof buf, r.aboveLo ? "above %g, up to %g" : "from %g to %g", r.lo, r.hi);
    return r.note ? std::string(buf) + " (" + r.note + ")" : std::string(buf);
}

Result<ModelInfo> readHeader(const Args &a)
{
    if (a.header)
        return *a.header;
    return inspectModel(a.model);
}

static std::string whyNotFor(const std::string &command, Args &a)
{
    // `chat m.gguf -p two words` would answer "two" and drop "words" without a word.
    if (a.positional.size() > 1) {
        const std::string &extra = a.positional[1];
        std::string why = command + " takes one model; '" + extra + "' is one argument too many";
        const auto after = std::find_if(a.afterValue.begin(), a.afterValue.end(),
                                        [&](const auto &p) { return p.first == extra; });
        const bool promptIsTokens = command == "bench" || command == "parity" || command == "tune";
        if (after == a.afterValue.end() || (promptIsTokens && after->second.rfind("-p ", 0) == 0))
            return why;
        const std::string &flagValue = after->second;
        const size_t space = flagValue.find(' ');
        return why + ": after " + flagValue + ", a value with spaces needs quotes (" + flagValue.substr(0, space) +
               " \"" + flagValue.substr(space + 1) + " " + extra + "\")";
    }
    if (command == "chat" && !inRange(a.generation.maxTokens, kMaxTokens))
        return "-n takes a whole number " + rangeText(kMaxTokens) + ", not '" + std::to_string(a.generation.maxTokens) + "'";
    if (command == "tune" && !a.deviceMarginMiB.empty())
        return "tune takes one --margin, kept free on every device, not one per device";
    // A what-if machine is planned, never run, and brings its own GPU and memory: flags about
    // this computer's devices would be dropped without a word.
    if (!a.profile.empty() && command != "info") {
        if (command != "plan" && command != "fit")
            return "--profile " + a.profile + ": " + command + " runs on this computer; a what-if machine is for plan "
                   "and fit";
        if (!a.vramBudgetMiB.empty())
            return "--profile and --vram-budget: the profile is a machine with its own memory; give one of them";
        if (!a.load.devices.empty() || !a.load.backend.empty())
            return std::string(a.load.devices.empty() ? "--backend" : "-dev/--device") +
                   " picks among this computer's devices; a --profile machine has one GPU of its own";
        if (!a.rpc.empty())
            return "--profile and --rpc: remote workers join this computer's devices, not a what-if machine's";
    }
    if (command != "bench" && command != "parity" && command != "tune")
        return {};
    // llama-bench's -p N and -n N: prompt and generated tokens per test.
    if (!a.prompt.empty()) {
        const std::optional<long long> n = parseWholeNumber(a.prompt);
        if (!n || !inRange(*n, kBenchTokens))
            return "-p takes a whole number of prompt tokens " + rangeText(kBenchTokens) + " for " + command +
                   ", not '" + a.prompt + "'";
        a.benchPrompt = static_cast<int>(*n);
    }
    if (!inRange(a.benchGenerate, kBenchTokens))
        return "-n takes a whole number of generated tokens " + rangeText(kBenchTokens) + " for " + command +
               ", not '" + std::to_string(a.benchGenerate) + "'";
    return {};
}

Error checkForCommand(const std::string &command, Args &a)
{
    if (std::string why = whyNotFor(command, a); !why.empty())
        return Error{ErrorCode::InvalidArgument, std::move(why)};
    return {};
}

const char *commonFlagsHelp()
{
    return "  -ngl N|all        GPU layers (-1 or all: all)\n"
           "  --n-cpu-moe N     keep the experts of the first N layers in RAM\n"
           "  -mg N             main GPU\n"
           "  -ts N,N,...       layers per device in proportion (remote machines first, then GPUs, as plan lists them)\n"
           "  -dev, --device D,...  the GPUs to use, in this order (as `devices` lists them; none: no GPU)\n"
           "  --backend NAME    for a card two backends see (CUDA and Vulkan): use this one's device of it\n"
           "  --mlock | --no-mmap\n"
           "  -c N              context size (0: the model's trained length)\n"
           "  -b N, -ub N       batch and micro-batch size\n"
           "  -ctk T, -ctv T    K/V cache type (f16, q8_0, q4_0, ...; a quantized V needs -fa on or auto)\n"
           "  -fa auto|on|off   flash attention\n"
           "  -t N, -tb N       threads, batch threads (0: the physical cores)\n"
           "  --spec-type T     speculative decoding, as llama-server: ngram-simple, ngram-mod, draft-mtp (the\n"
           "                    model's MTP layer), draft-simple (-md F: a draft model of the same vocabulary), none\n"
           "  --spec-draft-n-max N, --spec-draft-n-min N   tokens drafted per step at most / at least\n"
           "  --spec-ngram-simple-size-n N   ngram-simple: the n-gram looked up (default 12)\n"
           "  -n N              max tokens (-1: until the answer ends)\n"
           "  --temp F --top-k N --top-p F --min-p F --repeat-penalty F --presence-penalty F --seed N\n"
           "  -p TEXT           chat: the user message (bench, parity, tune: -p N prompt tokens);\n"
           "                    -sys TEXT system prompt, --no-think\n"
           "  --mmproj F        vision projector (mmproj-*.gguf); --no-mmproj-offload keeps it on the CPU\n"
           "  --image F         chat: an image for the message (repeatable; needs --mmproj)\n"
           "  --no-check        skip the check of the files (the model, --mmproj, -md) in a helper process\n"
           "                    before llama.cpp reads them in this one\n"
           "  --rpc H:P[,H:P]   devices of RPC workers (shoehorn-cli rpc-worker on another machine) join the plan and\n"
           "                    the load like local GPUs; a worker that does not answer is named and left out\n"
           "  -np N             parallel sequences\n"
           "  --profile ID      plan for a what-if machine (gtx1060-6g, rtx3060-12g, rtx4070-12g, rtx4090-24g)\n"
           "  --vram-budget MiB[,MiB...]  cap the usable memory of every device, or of each in plan's order\n"
           "                    (a remote worker reports its machine's free memory, not what it may use)\n"
           "  --margin MiB[,MiB...]       auto-fit safety margin per device (default 1024)\n"
           "  --exact           plan with llama.cpp's dry run instead of the analytic model\n"
           "  --llama-bench PATH  parity: llama.cpp's llama-bench (default: next to shoehorn-cli, then PATH)\n"
           "  --json            machine-readable output\n";
}

Result<Args> parseArgs(int argc, char **argv, int first)
{
    Args a;
    for (int i = first; i < argc; ++i)
        a.raw.emplace_back(argv[i]);
    Cursor c{argc, argv, first, {}, {}, {}};
    std::string error = parseEach(c, a);
    if (error.empty())
        error = finish(a);
    if (!error.empty())
        return Error{ErrorCode::InvalidArgument, error};
    return a;
}

PlanTarget machineTarget(const Args &a)
{
    std::vector<uint64_t> budgets;
    for (uint64_t m : a.vramBudgetMiB)
        budgets.push_back(m * MiB);
    return targetFromHardware(probeHardware(), budgets);
}

void applyMargins(const Args &a, FitRequest &r)
{
    r.marginBytes = a.marginMiB * MiB;
    r.deviceMarginBytes.clear();
    for (uint64_t m : a.deviceMarginMiB)
        r.deviceMarginBytes.push_back(m * MiB);
}

} // namespace shoehorn::cli
