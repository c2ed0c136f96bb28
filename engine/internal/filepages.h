#pragma once

// Engine-internal: the model file's pages after a load with mmap.

#include <llama.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shoehorn::internal {

// llama.cpp copies the weights it repacks for the CPU (and those it offloads to a GPU) out of the
// file mapping, but the mapping keeps their file pages: nothing reads them again, yet they stay
// in this process's resident memory and in the page cache. This drops them from the mapping
// (MADV_DONTNEED), keeping the pages of every weight used where it lies, and makes those resident
// now. Returns the bytes released. Only for plain mmap loads (not --mlock).
//
// Their page cache: left to the kernel when free memory can hold it (a reload, after tuning,
// finds them there), dropped (POSIX_FADV_DONTNEED; pages another process maps stay) when it
// cannot: left to reclaim then, the kernel evicted in-place weights' pages as well, 2-6 % of them
// on the Qwen3-30B-A3B shape on 24 GB, differently every load, to be read again at first use.
enum class PageCacheDrop { IfMemoryTight, Always, Never };
bool memoryIsTight(uint64_t freeBytes, uint64_t copiedBytes);
uint64_t releaseCopiedFilePages(const llama_model *model, const std::vector<std::string> &files,
                                PageCacheDrop drop = PageCacheDrop::IfMemoryTight);

// What the model's weights occupy in each host (RAM) buffer type, tensor by tensor. For a buffer
// mapped from the file (CPU_Mapped) llama.cpp's memory breakdown counts the whole mapped span,
// including the file bytes of the weights it copied elsewhere (repacked, offloaded); this counts
// only what lies there in place: the plan's file pages.
std::map<ggml_backend_buffer_type_t, uint64_t> hostWeightBytes(const llama_model *model);

} // namespace shoehorn::internal
