#pragma once

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
    LoadSettings load;
    ContextSettings context;
    GenerationOptions generation;
    std::vector<std::string> positional;
};

// Parses argv[first..]. Returns an empty string or the error.
std::string parseArgs(int argc, char **argv, int first, Args &out);
const char *commonFlagsHelp();

} // namespace shoehorn::cli
