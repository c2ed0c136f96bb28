#pragma once

#include "chatsession.h"
#include "cliargs.h"
#include "hardware.h"
#include "planner.h"

namespace shoehorn::cli {

// chat --memory-report: this process's anonymous and file-backed resident memory
// (processMemory()) before the load, after the load (model and context) and after the answer,
// against the plan's two RAM parts (MemoryPlan::anonymousBytes(), mmapResidentBytes); and per
// GPU the plan against llama.cpp's buffers there and against the free memory the load took.
// "memory:" lines on stderr, one `key=bytes` per field, for tools/ram-parts.sh and
// tools/gpu-bench.sh.
class MemoryReport
{
public:
    // Plans `context` (what chat runs with: a draft that failed the check is dropped), then reads
    // the process before the load.
    MemoryReport(const Args &a, const ContextSettings &context);
    void afterLoad(const ChatSession &session);
    void afterAnswer() const; // prints the comparison

private:
    bool m_on = false;
    MemoryPlan m_plan;
    ProcessMemory m_before;
    ProcessMemory m_loaded;
    std::vector<GpuInfo> m_gpusBefore;
};

} // namespace shoehorn::cli
