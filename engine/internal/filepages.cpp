#include "filepages.h"

#include <llama-model.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 // Linux 5.14
#endif

namespace shoehorn::internal {

namespace {

struct Mapping {
    uintptr_t start = 0;
    uintptr_t end = 0;
    uint64_t offset = 0; // in the file, of `start`
    std::string path;
};

// The mappings of `files` in this process, from /proc/self/maps.
std::vector<Mapping> fileMappings(const std::vector<std::string> &files)
{
    std::vector<std::string> wanted;
    for (const auto &f : files) {
        std::error_code ec;
        const auto canonical = std::filesystem::canonical(f, ec);
        wanted.push_back(ec ? f : canonical.string());
    }
    std::vector<Mapping> out;
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        const size_t slash = line.find('/');
        if (slash == std::string::npos)
            continue;
        const std::string path = line.substr(slash);
        if (std::find(wanted.begin(), wanted.end(), path) == wanted.end())
            continue;
        Mapping m;
        m.path = path;
        if (std::sscanf(line.c_str(), "%lx-%lx %*s %lx", &m.start, &m.end, &m.offset) == 3)
            out.push_back(m);
    }
    return out;
}

// Drops clean page-cache pages of a file range. Only pages no process maps go.
class PageCacheDropper
{
public:
    explicit PageCacheDropper(const std::string &path) : m_fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
    ~PageCacheDropper()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    PageCacheDropper(const PageCacheDropper &) = delete;
    PageCacheDropper &operator=(const PageCacheDropper &) = delete;
    void drop(uint64_t from, uint64_t to) const
    {
        if (m_fd >= 0)
            (void)::posix_fadvise(m_fd, off_t(from), off_t(to - from), POSIX_FADV_DONTNEED);
    }

private:
    int m_fd;
};

// Whole pages of the mappings strictly between the used ranges: never a page a used weight touches.
struct Gap {
    const Mapping *mapping;
    uintptr_t lo, hi;
};

std::vector<Gap> copiedGaps(const std::vector<Mapping> &mappings, const std::vector<std::pair<uintptr_t, uintptr_t>> &used,
                            uintptr_t page)
{
    std::vector<Gap> gaps;
    for (const Mapping &m : mappings) {
        uintptr_t from = m.start;
        auto add = [&](uintptr_t a, uintptr_t b) {
            const uintptr_t lo = (a + page - 1) / page * page, hi = b / page * page;
            if (hi > lo)
                gaps.push_back({&m, lo, hi});
        };
        // A mapping can be several VMAs: a used range may begin in an earlier one.
        for (const auto &[a, b] : used) {
            if (b <= m.start || a >= m.end)
                continue;
            if (a > from)
                add(from, a);
            from = std::max(from, b);
        }
        if (from < m.end)
            add(from, m.end);
    }
    return gaps;
}

// MemFree from /proc/meminfo: memory nothing holds, not even the page cache.
uint64_t freeMemoryBytes()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (in >> key >> kb >> unit)
        if (key == "MemFree:")
            return kb * 1024;
    return 0;
}

} // namespace

bool memoryIsTight(uint64_t freeBytes, uint64_t copiedBytes)
{
    return freeBytes < copiedBytes;
}

uint64_t releaseCopiedFilePages(const llama_model *model, const std::vector<std::string> &files, PageCacheDrop drop)
{
    const std::vector<Mapping> mappings = fileMappings(files);
    if (mappings.empty())
        return 0;
    // The byte ranges llama.cpp uses in place: tensors whose data lies inside a mapping.
    std::vector<std::pair<uintptr_t, uintptr_t>> used;
    for (const auto &[name, t] : model->tensors_by_name) {
        const auto data = reinterpret_cast<uintptr_t>(t->data);
        for (const Mapping &m : mappings)
            if (data >= m.start && data < m.end) {
                used.emplace_back(data, data + ggml_nbytes(t));
                break;
            }
    }
    std::sort(used.begin(), used.end());
    const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::vector<Gap> gaps = copiedGaps(mappings, used, page);
    uint64_t copied = 0;
    for (const Gap &g : gaps)
        copied += g.hi - g.lo;
    const bool dropCache = drop == PageCacheDrop::Always ||
                           (drop == PageCacheDrop::IfMemoryTight && memoryIsTight(freeMemoryBytes(), copied));
    uint64_t released = 0;
    for (const Gap &g : gaps) {
        if (::madvise(reinterpret_cast<void *>(g.lo), g.hi - g.lo, MADV_DONTNEED) != 0)
            continue;
        released += g.hi - g.lo;
        if (dropCache) {
            const PageCacheDropper cache(g.mapping->path);
            cache.drop(g.lo - g.mapping->start + g.mapping->offset, g.hi - g.mapping->start + g.mapping->offset);
        }
    }
    // The weights used in place, resident now rather than at their first use: what llama.cpp's
    // MAP_POPULATE is for (an MoE model's experts are otherwise read in during the first
    // answers, a few at a time), and what the plan's file pages count.
    for (const auto &[a, b] : used) {
        const uintptr_t lo = a / page * page, hi = (b + page - 1) / page * page;
        if (::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_POPULATE_READ) != 0) {
            for (uintptr_t p = lo; p < hi; p += page) // kernels before 5.14: touch each page
                (void)*reinterpret_cast<volatile const char *>(p);
        }
    }
    return released;
}

std::map<ggml_backend_buffer_type_t, uint64_t> hostWeightBytes(const llama_model *model)
{
    std::map<ggml_backend_buffer_type_t, uint64_t> bytes;
    for (const auto &[name, t] : model->tensors_by_name) {
        if (!t->buffer)
            continue;
        ggml_backend_buffer_type_t buft = ggml_backend_buffer_get_type(t->buffer);
        if (ggml_backend_buft_is_host(buft))
            bytes[buft] += ggml_backend_buft_get_alloc_size(buft, t);
    }
    return bytes;
}

} // namespace shoehorn::internal
