#pragma once

#include "apiserver.h"
#include "error.h"
#include "settings.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

namespace internal {
struct Access;
struct ServerArgsData;
} // namespace internal

// llama-server's -fit, -fitt and -fitc: on (llama-server's default), Shoehorn's planner and
// auto-fit choose -ngl, --n-cpu-moe, -c and the KV types that were not given, keeping `marginMiB`
// free on every GPU.
struct ServeFit {
    bool on = true;
    uint64_t marginMiB = 1024;
    std::vector<uint64_t> deviceMarginMiB; // -fitt per device, in llama.cpp's device order
    uint32_t minContext = 4096;
};

struct ServerPreset;

// llama-server's command line, read by llama.cpp's own argument parser for the server
// (common/arg, LLAMA_EXAMPLE_SERVER), so every flag and LLAMA_ARG_* variable means what it means
// to llama-server. Shoehorn plans with what it knows (placement, context, KV, threads) and hands
// the rest (sampling, templates, reasoning, timeouts, endpoints...) to the server loop as given.
// A copy is cheap (shared, immutable).
class ServerArgs
{
public:
    ServerArgs(); // llama-server's defaults
    // `args` without the program name. InvalidArgument carries llama.cpp's own message for an
    // unknown flag or a bad value, or names a flag Shoehorn does not take (see unsupported()).
    // "--help" prints llama-server's usage and `note` and exits 0, as llama-server does.
    static Result<ServerArgs> parse(const std::vector<std::string> &args, const char *note = nullptr);
    // The flags llama-server takes that Shoehorn refuses, and why (README, --help).
    static std::vector<std::pair<std::string, std::string>> unsupported();

    std::string modelPath() const;        // -m
    std::string alias() const;            // --alias (the first name); empty: the file's name
    std::string mmprojPath() const;       // --mmproj
    bool mmprojOffload() const;           // --no-mmproj-offload: false
    std::string modelsPreset() const;     // --models-preset: router mode when there is no -m

    LoadSettings load() const;            // -ngl, --n-cpu-moe/--cpu-moe, -mg, -ts, --mmap/--mlock
    ContextSettings context() const;      // -c, -b, -ub, -ctk, -ctv, -fa, -t, -tb
    // Which of them the command line set (the rest are auto-fit's to choose).
    bool gpuLayersGiven() const;
    bool cpuMoeGiven() const;
    bool contextGiven() const;
    bool cacheTypesGiven() const;
    bool tensorSplitGiven() const;
    int parallel() const;                 // -np; auto (-1) is 4, as llama-server
    // One KV pool for every slot (-kvu, and -np auto as llama-server sets it); false: each slot
    // gets its part, the context divided by -np (llama-server's default for a given -np).
    bool kvUnified() const;
    bool contextShift() const;            // --context-shift
    ServeFit fit() const;
    // --host, --port, --api-key/--api-key-file, --metrics, --cors-origins (not given: Shoehorn's
    // "localhost", where llama-server says "*").
    ApiServerOptions http() const;
    bool webUi() const;                   // --no-ui: false
    // The sampling every request starts from (--temp, --top-k, --top-p, --min-p, --seed...), as
    // given; fields the command line did not set come from the model file when it recommends them.
    SamplingSettings sampling() const;
    int maxTokens() const;                // -n; -1: no limit

    // Router mode: the file's presets (llama.cpp's own INI loader), each the [*] section, then
    // its own section, then this command line over it, as llama-server's router builds the
    // command line of each model. A model path relative in the file is relative to the file.
    Result<std::vector<ServerPreset>> presets() const;

private:
    friend struct internal::Access;
    std::shared_ptr<const internal::ServerArgsData> m_data;
};

struct ServerPreset {
    std::string name; // the section: the model's name in requests and /v1/models
    ServerArgs args;
};

} // namespace shoehorn
