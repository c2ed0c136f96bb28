#pragma once

#include "autofit.h"
#include "settings.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shoehorn::cli {

// llama.cpp-style flags shared by the subcommands.
struct Args {
    std::string model;
    std::string prompt;
    std::string system;
    std::string mmproj;              // --mmproj F: the vision projector (chat, plan, fit, serve)
    bool mmprojOffload = true;       // --no-mmproj-offload keeps it on the CPU
    std::vector<std::string> images; // chat: --image F (repeatable)
    std::vector<std::string> rpc;    // --rpc host:port[,...]: RPC workers whose devices join this machine's
    bool checkFile = true;           // check the model, --mmproj and -md in a helper process first (--no-check)
    bool json = false;
    bool progress = false; // chat: load progress on stderr
    bool tensors = false;
    bool noThinking = false;
    bool exact = false;
    bool memoryReport = false; // chat: process memory around the load, against the plan
    int parallel = 1;
    std::string profile;         // plan for a what-if profile
    // --vram-budget MiB[,MiB...]: cap the real devices (one value: every device; a list: each in
    // the order `plan` shows them, remote machines first, as llama.cpp orders them).
    std::vector<uint64_t> vramBudgetMiB;
    uint64_t marginMiB = 1024;             // auto-fit safety margin per device
    std::vector<uint64_t> deviceMarginMiB; // --margin MiB,MiB,...: one per device
    bool tensorSplitGiven = false;         // -ts: auto-fit keeps it
    FitLocks locks;
    int benchPrompt = 512;
    int benchGenerate = 128;
    int benchReps = 5;
    int parityRounds = 3;
    std::string output = "md"; // bench -o md|json|csv
    std::string llamaBench;    // parity: llama.cpp's llama-bench (empty: look for it)
    bool parallelGiven = false;
    bool contextGiven = false;
    LoadSettings load;
    ContextSettings context;
    GenerationOptions generation;
    std::vector<std::string> positional;
    std::vector<std::string> given; // the flags given, as typed, in order
    // A positional right after a flag's value, with that flag and value ("-p two" before "words").
    std::vector<std::pair<std::string, std::string>> afterValue;
    std::vector<std::string> raw; // the arguments as given, after the command name
    // The model's header as run() read it once (for the default context): the commands take it
    // from here instead of parsing the file again (70 ms of `plan`'s 310 on the 30B shape).
    std::optional<ModelInfo> header;
};

// The model's header: the one run() read, else read now.
Result<ModelInfo> readHeader(const Args &a);

// What a numeric flag takes, for parsing and for the message when a value is outside it.
struct IntRange {
    long long lo;
    long long hi;
    const char *note = nullptr; // what special values mean, e.g. "0: the model's trained length"
    bool skipZero = false;      // 0 is inside lo..hi but means nothing
};
struct FloatRange {
    double lo;
    double hi;
    bool aboveLo = false;       // lo itself is not taken
    const char *note = nullptr;
};

// "from 0 to 512 (0: the physical cores)", "above 0, up to 100 (1: off)".
std::string rangeText(const IntRange &r);
std::string rangeText(const FloatRange &r);
// The whole string as a whole number in long long's range, or nothing.
std::optional<long long> parseWholeNumber(const std::string &s);

// Parses argv[first..]: the flags, or InvalidArgument saying what was wrong: a missing value, a
// value outside the flag's range (naming the flag, the range and the value), or settings
// llama.cpp refuses (validate()).
Result<Args> parseArgs(int argc, char **argv, int first);
// The real machine with --vram-budget applied.
PlanTarget machineTarget(const Args &a);
// Auto-fit's margins from --margin.
void applyMargins(const Args &a, FitRequest &r);
// What only `command` needs: one model (a second positional is a value that lost its flag or
// its quotes), and bench, parity and tune take -p and -n as token counts. InvalidArgument saying
// what does not fit the command.
Error checkForCommand(const std::string &command, Args &a);
const char *commonFlagsHelp();

} // namespace shoehorn::cli
