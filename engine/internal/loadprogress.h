#pragma once

// Engine-internal: one load's progress, 0..1 over its phases, whichever thread reports it.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace shoehorn::internal {

// With mmap a load has three phases:
//  1. Shoehorn reads the file into the page cache (readahead, with progress and Cancel);
//  2. llama.cpp maps it with MAP_POPULATE: seconds for a big model, inside mmap(), with no report
//     of its own; measured here from the process's file-backed resident memory (/proc/self/statm),
//     which grows as the mapping fills;
//  3. llama.cpp reads and repacks the weights, reporting 0..1 itself.
// Without mmap llama.cpp reports the whole load (phase 3 only).
class LoadProgress
{
public:
    using Fn = std::function<void(float)>;
    LoadProgress(const Fn &fn, const std::atomic<bool> *cancel, bool mmap);
    ~LoadProgress(); // stops the watcher
    LoadProgress(const LoadProgress &) = delete;
    LoadProgress &operator=(const LoadProgress &) = delete;

    bool cancelled() const { return m_cancel && m_cancel->load(std::memory_order_relaxed); }
    void warmed(uint64_t done, uint64_t total);  // phase 1
    void watchMapping(uint64_t fileBytes);       // starts phase 2 (mmap loads)
    bool fromLlama(float p);                     // phase 3; false: cancel the load

    // llama.cpp's progress_callback.
    static bool callback(float p, void *self) { return static_cast<LoadProgress *>(self)->fromLlama(p); }

private:
    void report(float p); // monotonic; under m_mutex
    void watch(uint64_t fileBytes, uint64_t base);
    void stopWatching();

    const Fn m_fn; // a copy: the watcher thread calls it too
    const std::atomic<bool> *m_cancel;
    float m_warmShare = 0.0f;
    float m_mapShare = 0.0f;
    std::mutex m_mutex;
    float m_last = -1.0f;
    bool m_llamaReporting = false;
    std::condition_variable m_wake;
    std::thread m_watcher;
};

} // namespace shoehorn::internal
