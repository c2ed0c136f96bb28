#include "flaguse.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace shoehorn::cli {

namespace {

// The commands that read a flag. The load and context flags (and --rpc, --no-check, -m) are
// every loading command's: `plan` takes a chat's command line as it is.
std::vector<std::string_view> commandsReading(std::string_view f)
{
    using Names = std::vector<std::string_view>;
    static const std::vector<std::pair<Names, Names>> kTable = {
        {{"--temp", "--top-k", "--top-p", "--min-p", "--repeat-penalty", "--presence-penalty", "--seed", "-s",
          "--reverse-prompt", "-sys", "--system-prompt", "--no-think", "--image", "--progress", "--memory-report"},
         {"chat"}},
        {{"-p", "--prompt", "-n", "--n-predict"}, {"chat", "bench", "parity", "tune"}},
        {{"--mmproj", "-mm", "--no-mmproj-offload"}, {"chat", "plan", "fit"}},
        {{"-r", "--repetitions"}, {"bench", "parity"}},
        {{"-o", "--output"}, {"bench"}},
        {{"--rounds", "--llama-bench"}, {"parity"}},
        {{"--json"}, {"info", "plan", "fit"}},
        {{"--tensors"}, {"info"}},
        {{"--exact"}, {"plan"}},
        {{"--lock-ngl", "--lock-ncmoe", "--lock-ctx", "--lock-kv"}, {"fit"}},
        {{"--margin"}, {"fit", "tune"}},
        {{"-np", "--parallel", "--profile"}, {"plan", "fit"}},
        {{"--vram-budget"}, {"plan", "fit", "tune"}},
        {{"-m", "--model"}, {"info", "chat", "plan", "fit", "bench", "parity", "tune"}},
    };
    for (const auto &[flags, commands] : kTable)
        if (std::find(flags.begin(), flags.end(), f) != flags.end())
            return commands;
    return {"chat", "plan", "fit", "bench", "parity", "tune"};
}

} // namespace

std::string unusedFlagsNote(const std::string &command, const Args &a)
{
    // Flags that share their readers go in one group: "-ngl, --n-gpu-layers (chat, ...)".
    std::vector<std::pair<std::vector<std::string_view>, std::vector<std::string>>> groups;
    size_t count = 0;
    for (const std::string &f : a.given) {
        const auto readers = commandsReading(f);
        if (std::find(readers.begin(), readers.end(), command) != readers.end())
            continue;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const auto &x) { return x.first == readers; });
        if (g == groups.end())
            g = groups.insert(groups.end(), {readers, {}});
        if (std::find(g->second.begin(), g->second.end(), f) == g->second.end()) {
            g->second.push_back(f);
            ++count;
        }
    }
    if (groups.empty())
        return {};
    std::string list;
    for (const auto &[readers, flags] : groups) {
        list += list.empty() ? "" : "; ";
        for (size_t i = 0; i < flags.size(); ++i)
            list.append(i ? ", " : "").append(flags[i]);
        list += " (";
        for (size_t i = 0; i < readers.size(); ++i)
            list.append(i == 0 ? "" : i + 1 == readers.size() ? " and " : ", ").append(readers[i]);
        list += readers.size() == 1 ? "'s)" : ")";
    }
    return "note: " + command + " does not use " + list + ": " + (count == 1 ? "it changes" : "they change") +
           " nothing here";
}

std::string flagsHelpFor(const std::string &command)
{
    // An entry is a line "  -flag ..." and the lines indented under it; its first flag says who reads it.
    const std::string all = commonFlagsHelp();
    std::string out;
    bool keep = false;
    size_t at = 0;
    while (at < all.size()) {
        const size_t end = std::min(all.find('\n', at), all.size());
        const std::string line = all.substr(at, end - at);
        at = end + 1;
        if (line.rfind("  -", 0) == 0) {
            const std::string flag = line.substr(2, line.find_first_of(" ,", 2) - 2);
            const auto readers = commandsReading(flag);
            keep = std::find(readers.begin(), readers.end(), command) != readers.end();
        }
        if (keep)
            out += line + "\n";
    }
    return out;
}

} // namespace shoehorn::cli
