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

struct Range {
    uint64_t lo, hi;
};

// What is not in `used` (sorted) within [from, to).
std::vector<Range> complement(const std::vector<Range> &used, uint64_t from, uint64_t to)
{
    std::vector<Range> out;
    for (const Range &u : used) {
        if (u.hi <= from || u.lo >= to)
            continue;
        if (u.lo > from)
            out.push_back({from, u.lo});
        from = std::max(from, u.hi);
    }
    if (from < to)
        out.push_back({from, to});
    return out;
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

// This model's weights used where they lie in a file mapping.
struct InPlace {
    std::vector<Range> addresses;                      // sorted
    std::vector<Range> spans;                          // its mapped buffers (CPU_Mapped): base, size
    std::map<std::string, std::vector<Range>> offsets; // per file, in the file; sorted
};

InPlace inPlaceWeights(const llama_model *model, const std::vector<Mapping> &vmas)
{
    InPlace w;
    for (const auto &[name, t] : model->tensors_by_name) {
        const auto data = reinterpret_cast<uintptr_t>(t->data);
        for (const Mapping &m : vmas)
            if (data >= m.start && data < m.end) {
                const uint64_t n = ggml_nbytes(t);
                w.addresses.push_back({data, data + n});
                w.offsets[m.path].push_back({data - m.start + m.offset, data - m.start + m.offset + n});
                if (t->buffer) {
                    const auto base = reinterpret_cast<uintptr_t>(ggml_backend_buffer_get_base(t->buffer));
                    w.spans.push_back({base, base + ggml_backend_buffer_get_size(t->buffer)});
                }
                break;
            }
    }
    auto byStart = [](const Range &a, const Range &b) { return a.lo < b.lo || (a.lo == b.lo && a.hi < b.hi); };
    std::sort(w.addresses.begin(), w.addresses.end(), byStart);
    std::sort(w.spans.begin(), w.spans.end(), byStart);
    w.spans.erase(std::unique(w.spans.begin(), w.spans.end(),
                              [](const Range &a, const Range &b) { return a.lo == b.lo && a.hi == b.hi; }),
                  w.spans.end());
    for (auto &[path, ranges] : w.offsets)
        std::sort(ranges.begin(), ranges.end(), byStart);
    return w;
}

// Drops the page cache of every part of the files that no weight of this model uses in place
// (the copied weights, and the head and tail that llama.cpp unmapped itself) when free memory
// cannot hold it. Pages another mapping (another loaded model) uses stay: the kernel keeps them.
void dropCopiedPageCache(const InPlace &w, PageCacheDrop drop)
{
    std::vector<std::pair<std::string, std::vector<Range>>> copied;
    uint64_t copiedBytes = 0;
    for (const auto &[path, ranges] : w.offsets) {
        std::error_code ec;
        const uint64_t size = std::filesystem::file_size(path, ec);
        if (ec)
            continue;
        copied.emplace_back(path, complement(ranges, 0, size));
        for (const Range &r : copied.back().second)
            copiedBytes += r.hi - r.lo;
    }
    if (drop == PageCacheDrop::Never || (drop == PageCacheDrop::IfMemoryTight && !memoryIsTight(freeMemoryBytes(), copiedBytes)))
        return;
    for (const auto &[path, ranges] : copied) {
        const PageCacheDropper cache(path);
        for (const Range &r : ranges)
            cache.drop(r.lo, r.hi);
    }
}

} // namespace

bool memoryIsTight(uint64_t freeBytes, uint64_t copiedBytes)
{
    return freeBytes < copiedBytes;
}

uint64_t releaseCopiedFilePages(const llama_model *model, const std::vector<std::string> &files, PageCacheDrop drop)
{
    const InPlace w = inPlaceWeights(model, fileMappings(files));
    if (w.addresses.empty())
        return 0;
    // Out of this model's mapped buffers (not another model's mapping of the same file): the
    // whole pages strictly between the weights used in place, never a page such a weight touches.
    const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
    uint64_t released = 0;
    for (const Range &span : w.spans)
        for (const Range &g : complement(w.addresses, span.lo, span.hi)) {
            const uint64_t lo = (g.lo + page - 1) / page * page, hi = g.hi / page * page;
            if (hi > lo && ::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED) == 0)
                released += hi - lo;
        }
    dropCopiedPageCache(w, drop);
    // The weights used in place, resident now rather than at their first use: what llama.cpp's
    // MAP_POPULATE is for (an MoE model's experts are otherwise read in during the first
    // answers, a few at a time), and what the plan's file pages count.
    for (const Range &u : w.addresses) {
        const uint64_t lo = u.lo / page * page, hi = (u.hi + page - 1) / page * page;
        if (::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_POPULATE_READ) != 0) {
            for (uint64_t p = lo; p < hi; p += page) // kernels before 5.14: touch each page
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
