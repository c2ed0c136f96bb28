#pragma once

#include "autofit.h"
#include "settings.h"

#include <string>
#include <vector>

namespace shoehorn::cli {

// llama.cpp-style flags shared by the subcommands.
struct Args {
    std::string model;
    std::string prompt;
    std::string system;
    bool json = false;
    bool tensors = false;
    bool noThinking = false;
    bool exact = false;
    int parallel = 1;
    std::string profile;         // plan for a what-if profile
    uint64_t vramBudgetMiB = 0;  // cap the real GPUs
    uint64_t marginMiB = 1024;   // auto-fit safety margin per GPU
    FitLocks locks;
    int benchPrompt = 512;
    int benchGenerate = 128;
    int benchReps = 5;
    int parityRounds = 3;
    std::string output = "md"; // bench -o md|json|csv
    std::string llamaBench;    // parity: llama.cpp's llama-bench (empty: look for it)
    bool contextGiven = false;
    LoadSettings load;
    ContextSettings context;
    GenerationOptions generation;
    std::vector<std::string> positional;
    std::vector<std::string> raw; // the arguments as given, after the command name
};

// Parses argv[first..]. Returns an empty string or the error.
std::string parseArgs(int argc, char **argv, int first, Args &out);
const char *commonFlagsHelp();

} // namespace shoehorn::cli
