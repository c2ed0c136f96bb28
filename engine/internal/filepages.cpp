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

// Drops clean page-cache pages of a file range. Only pages no process maps go:
// those were copied out at load and nothing reads them again; leaving them to the kernel's
// reclaim made it evict in-place weights' pages as well, 2-6 % of them, differently every load.
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

} // namespace

uint64_t releaseCopiedFilePages(const llama_model *model, const std::vector<std::string> &files)
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
    uint64_t released = 0;
    for (const Mapping &m : mappings) {
        uintptr_t from = m.start;
        const PageCacheDropper cache(m.path);
        auto release = [&](uintptr_t a, uintptr_t b) {
            // Whole pages strictly between the used ranges: never a page a used weight touches.
            const uintptr_t lo = (a + page - 1) / page * page, hi = b / page * page;
            if (hi > lo && ::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED) == 0) {
                released += hi - lo;
                cache.drop(lo - m.start + m.offset, hi - m.start + m.offset);
            }
        };
        // A mapping can be several VMAs: a used range may begin in an earlier one.
        for (const auto &[a, b] : used) {
            if (b <= m.start || a >= m.end)
                continue;
            if (a > from)
                release(from, a);
            from = std::max(from, b);
        }
        if (from < m.end)
            release(from, m.end);
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
