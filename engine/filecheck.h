#pragma once

#include "error.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace shoehorn {

// A GGUF is a file from the internet, and its chat template is a program llama.cpp runs. Before a
// file is loaded in-process the first time (and whenever it changed), a helper process loads
// its metadata and vocabulary, tokenizes sample text and renders the chat template for sample
// conversations, under limits; a crash, an abort, a hang or runaway memory there becomes an
// Error naming the cause, and nothing is loaded here.

struct FileCheckLimits {
    int seconds = 5;                    // wall clock for the whole check
    uint64_t memoryBytes = 2ull << 30;  // the helper's heap (RLIMIT_DATA: mapped model pages do not count)
};

struct FileCheckVerdict {
    bool fromCache = false;
    double milliseconds = 0;            // how long the check took (0 when cached)
};

// What the helper runs, in this process: vocabulary, tokenizing, the chat template. Prints the
// stage it enters on stderr ("check: template") so that a crash can be named by its stage.
Error checkFileInProcess(const std::string &path);

// The check's verdict on a file that a flag named ("-md", "--mmproj"): "-md /x/d.gguf: why", the
// verdict's own "d.gguf: " dropped so the file is named once.
std::string flaggedVerdict(const std::string &flag, const std::string &path, const Error &verdict);

// What `shoehorn-cli render-template MODEL` runs: the helper process of a session's chat template
// (ChatSession::isolateTemplate). Serves render requests on stdin/stdout until EOF; exit status.
int serveChatTemplates(const std::string &modelPath);

// Runs `helper check-file PATH` (shoehorn-cli) under `limits` and reads its verdict. Verdicts of
// files that passed are kept in `cacheFile` (one line per path, size and modification time), so a
// file is checked again only when it changed. Cancelled when `cancel` is set (the helper is killed).
Result<FileCheckVerdict> checkFileIsolated(const std::string &path, const std::string &helper,
                                           const FileCheckLimits &limits, const std::string &cacheFile,
                                           const std::atomic<bool> *cancel = nullptr);

} // namespace shoehorn
