#pragma once

#include "error.h"
#include "modelinfo.h"
#include "settings.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

namespace internal {
struct Access;
}

// A loaded model and what we know of its file. The llama.cpp handle lives behind the
// pointer to implementation, so users of the engine never compile against llama.cpp;
// engine code reaches it through internal/llamahandles.h.
class Model
{
public:
    using ProgressFn = std::function<void(float)>;

    // Loads on the calling thread. `cancel` is checked from llama's progress callback.
    // `progress` gets 0..1, rising, one call at a time but not always on the calling thread (a
    // watcher reports while llama.cpp maps the file): it must be quick and must not block.
    static Result<std::shared_ptr<Model>> load(const std::string &path, const LoadSettings &settings,
                                               const ProgressFn &progress = {},
                                               const std::atomic<bool> *cancel = nullptr);
    ~Model();
    Model(const Model &) = delete;
    Model &operator=(const Model &) = delete;

    const ModelInfo &info() const;
    const LoadSettings &settings() const;
    std::string description() const;

    // llama.cpp's --n-cpu-moe patterns for the first n layers.
    static std::vector<std::string> cpuMoePatterns(int layers);

private:
    friend struct internal::Access;
    struct Impl;
    Model();
    std::unique_ptr<Impl> m_impl;
};

// True if llama.cpp's log text describes a failed allocation.
bool looksLikeOutOfMemory(const std::string &log);

} // namespace shoehorn
