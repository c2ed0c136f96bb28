#include "cliargs.h"

#include <cstdlib>
#include <stdexcept>

namespace shoehorn::cli {

namespace {

// A flag given last, without its value.
struct MissingValue : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Walks argv: the flag being parsed and the value last taken, for the error message.
struct Cursor {
    int argc;
    char **argv;
    int i;
    std::string flag;
    std::string value;

    std::string next()
    {
        if (i + 1 >= argc)
            throw MissingValue("missing value for " + flag);
        value = argv[++i];
        return value;
    }
};

int toInt(const std::string &s)
{
    return std::stoi(s);
}

float toFloat(const std::string &s)
{
    return std::stof(s);
}

// Each parse*Flag() below knows one group of flags: it returns false for a flag of another
// group, and throws (through Cursor::next or a number conversion) on a missing or bad value.

// Where the weights go.
bool parseLoadFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-ngl" || f == "--n-gpu-layers" || f == "--gpu-layers") {
        const std::string v = c.next();
        a.load.gpuLayers = (v == "all" || v == "auto") ? -1 : toInt(v);
    } else if (f == "--n-cpu-moe" || f == "-ncmoe") a.load.cpuMoeLayers = toInt(c.next());
    else if (f == "-mg" || f == "--main-gpu") a.load.mainGpu = toInt(c.next());
    else if (f == "--mlock") a.load.loadMode = LoadMode::Mlock;
    else if (f == "--no-mmap") a.load.loadMode = LoadMode::NoMmap;
    else return false;
    return true;
}

// The context: size, batches, KV cache, flash attention, threads. Sets `error` for a bad -fa.
bool parseContextFlag(const std::string &f, Cursor &c, Args &a, std::string &error)
{
    if (f == "-c" || f == "--ctx-size") {
        a.context.contextSize = static_cast<uint32_t>(toInt(c.next()));
        a.contextGiven = true;
    }
    else if (f == "-b" || f == "--batch-size") a.context.batchSize = static_cast<uint32_t>(toInt(c.next()));
    else if (f == "-ub" || f == "--ubatch-size") a.context.ubatchSize = static_cast<uint32_t>(toInt(c.next()));
    else if (f == "-ctk" || f == "--cache-type-k") a.context.typeK = c.next();
    else if (f == "-ctv" || f == "--cache-type-v") a.context.typeV = c.next();
    else if (f == "-fa" || f == "--flash-attn") {
        if (!parseFlashAttention(c.next(), a.context.flashAttention))
            error = "-fa takes auto, on or off";
    } else if (f == "-t" || f == "--threads") a.context.threads = toInt(c.next());
    else if (f == "-tb" || f == "--threads-batch") a.context.threadsBatch = toInt(c.next());
    else return false;
    return true;
}

// Sampling and generation limits.
bool parseGenerationFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-n" || f == "--n-predict") {
        a.generation.maxTokens = toInt(c.next());
        a.benchGenerate = a.generation.maxTokens;
    } else if (f == "--temp") a.generation.sampling.temperature = toFloat(c.next());
    else if (f == "--top-k") a.generation.sampling.topK = toInt(c.next());
    else if (f == "--top-p") a.generation.sampling.topP = toFloat(c.next());
    else if (f == "--min-p") a.generation.sampling.minP = toFloat(c.next());
    else if (f == "--repeat-penalty") a.generation.sampling.repeatPenalty = toFloat(c.next());
    else if (f == "--presence-penalty") a.generation.sampling.presencePenalty = toFloat(c.next());
    else if (f == "--seed" || f == "-s") a.generation.sampling.seed = static_cast<uint32_t>(std::stoul(c.next()));
    else if (f == "--reverse-prompt") a.generation.stop.push_back(c.next());
    else return false;
    return true;
}

// The conversation: prompt, system prompt, thinking.
bool parsePromptFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-p" || f == "--prompt") {
        a.prompt = c.next();
        // bench takes -p N (prompt tokens) like llama-bench; chat takes -p TEXT.
        try {
            size_t used = 0;
            const int n = std::stoi(a.prompt, &used);
            if (used == a.prompt.size())
                a.benchPrompt = n;
        } catch (const std::exception &) {
        }
    }
    else if (f == "-sys" || f == "--system-prompt") a.system = c.next();
    else if (f == "--no-think") a.noThinking = true;
    else return false;
    return true;
}

// bench, parity, plan, fit and info: repetitions, output, target machine, locks.
bool parseCommandFlag(const std::string &f, Cursor &c, Args &a)
{
    if (f == "-r" || f == "--repetitions") a.benchReps = toInt(c.next());
    else if (f == "--rounds") a.parityRounds = toInt(c.next());
    else if (f == "-o" || f == "--output") a.output = c.next();
    else if (f == "--llama-bench") a.llamaBench = c.next();
    else if (f == "--json") a.json = true;
    else if (f == "--exact") a.exact = true;
    else if (f == "--lock-ngl") a.locks.gpuLayers = true;
    else if (f == "--lock-ncmoe") a.locks.cpuMoeLayers = true;
    else if (f == "--lock-ctx") a.locks.contextSize = true;
    else if (f == "--lock-kv") a.locks.kvType = true;
    else if (f == "-np" || f == "--parallel") a.parallel = toInt(c.next());
    else if (f == "--profile") a.profile = c.next();
    else if (f == "--vram-budget") a.vramBudgetMiB = std::stoull(c.next());
    else if (f == "--margin") a.marginMiB = std::stoull(c.next());
    else if (f == "--tensors") a.tensors = true;
    else return false;
    return true;
}

// Every argument in turn: a flag of some group, an unknown option or a positional.
std::string parseEach(Cursor &c, Args &a)
{
    for (; c.i < c.argc; ++c.i) {
        const std::string f = c.argv[c.i];
        c.flag = f;
        std::string error;
        if (parseLoadFlag(f, c, a) || parseContextFlag(f, c, a, error) || parseGenerationFlag(f, c, a) ||
            parsePromptFlag(f, c, a) || parseCommandFlag(f, c, a)) {
            if (!error.empty())
                return error;
        } else if (!f.empty() && f[0] == '-' && f.size() > 1) {
            return "unknown option " + f;
        } else {
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
    if (!isKvCacheType(a.context.typeK) || !isKvCacheType(a.context.typeV))
        return "unknown KV cache type " + a.context.typeK + "/" + a.context.typeV + " (f16, q8_0, q4_0, ...)";
    if (!a.positional.empty())
        a.model = a.positional.front();
    a.generation.enableThinking = !a.noThinking;
    return {};
}

} // namespace

const char *commonFlagsHelp()
{
    return "  -ngl N            GPU layers (-1: all)\n"
           "  --n-cpu-moe N     keep the experts of the first N layers in RAM\n"
           "  -mg N             main GPU\n"
           "  --mlock | --no-mmap\n"
           "  -c N              context size\n"
           "  -b N, -ub N       batch and micro-batch size\n"
           "  -ctk T, -ctv T    K/V cache type (f16, q8_0, q4_0)\n"
           "  -fa auto|on|off   flash attention\n"
           "  -t N, -tb N       threads, batch threads\n"
           "  -n N              max tokens\n"
           "  --temp F --top-k N --top-p F --min-p F --repeat-penalty F --presence-penalty F --seed N\n"
           "  -p TEXT           user message, -sys TEXT system prompt, --no-think\n"
           "  -np N             parallel sequences\n"
           "  --profile ID      plan for a what-if machine (gtx1060-6g, rtx3060-12g, rtx4070-12g, rtx4090-24g)\n"
           "  --vram-budget MiB cap the usable memory of this machine's GPUs\n"
           "  --margin MiB      auto-fit safety margin per GPU (default 1024)\n"
           "  --exact           plan with llama.cpp's dry run instead of the analytic model\n"
           "  --llama-bench PATH  parity: llama.cpp's llama-bench (default: next to shoehorn-cli, then PATH)\n"
           "  --json            machine-readable output\n";
}

std::string parseArgs(int argc, char **argv, int first, Args &a)
{
    for (int i = first; i < argc; ++i)
        a.raw.emplace_back(argv[i]);
    Cursor c{argc, argv, first, {}, {}};
    try {
        const std::string error = parseEach(c, a);
        if (!error.empty())
            return error;
    } catch (const MissingValue &e) {
        return e.what();
    } catch (const std::exception &) {
        return "bad value for " + c.flag + ": '" + c.value + "' is not a number in range";
    }
    return finish(a);
}

} // namespace shoehorn::cli
