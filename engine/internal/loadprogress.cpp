#include "loadprogress.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <unistd.h>

namespace shoehorn::internal {

namespace {

// Resident file-backed and shared memory of this process (the "shared" field of
// /proc/self/statm: kernel counters, cheap to read ten times a second).
uint64_t residentFileBytes()
{
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0, shared = 0;
    if (!(statm >> size >> resident >> shared))
        return 0;
    return shared * uint64_t(::sysconf(_SC_PAGESIZE));
}

} // namespace

// The shares follow where the time went on the Qwen3-30B-A3B shape (18 GB, this 2-core CPU):
// reading a cold file is the long part on a real disk, the populate a few seconds, llama.cpp's
// repacking about 20 s.
LoadProgress::LoadProgress(const Fn &fn, const std::atomic<bool> *cancel, bool mmap)
    : m_fn(fn), m_cancel(cancel), m_warmShare(mmap ? 0.45f : 0.0f), m_mapShare(mmap ? 0.10f : 0.0f)
{
}

LoadProgress::~LoadProgress()
{
    stopWatching();
}

void LoadProgress::report(float p)
{
    if (p <= m_last)
        return;
    m_last = p;
    if (m_fn)
        m_fn(p);
}

void LoadProgress::warmed(uint64_t done, uint64_t total)
{
    if (total == 0)
        return;
    std::lock_guard lock(m_mutex);
    report(m_warmShare * float(std::min(done, total)) / float(total));
}

void LoadProgress::watchMapping(uint64_t fileBytes)
{
    if (m_mapShare <= 0.0f || fileBytes == 0)
        return;
    m_watcher = std::thread(&LoadProgress::watch, this, fileBytes, residentFileBytes());
}

void LoadProgress::watch(uint64_t fileBytes, uint64_t base)
{
    std::unique_lock lock(m_mutex);
    while (!m_llamaReporting) {
        const uint64_t now = residentFileBytes();
        const float mapped = float(std::min(now > base ? now - base : 0, fileBytes)) / float(fileBytes);
        report(m_warmShare + m_mapShare * mapped);
        m_wake.wait_for(lock, std::chrono::milliseconds(100));
    }
}

void LoadProgress::stopWatching()
{
    {
        std::lock_guard lock(m_mutex);
        m_llamaReporting = true;
    }
    m_wake.notify_all();
    if (m_watcher.joinable())
        m_watcher.join();
}

bool LoadProgress::fromLlama(float p)
{
    if (cancelled())
        return false; // llama.cpp stops loading and returns null
    {
        std::lock_guard lock(m_mutex);
        m_llamaReporting = true; // the watcher stops at its next look
        const float start = m_warmShare + m_mapShare;
        report(start + p * (1.0f - start));
    }
    m_wake.notify_all();
    return true;
}

} // namespace shoehorn::internal
