#include "memreport.h"

#include "modelinfo.h"

#include <cmath>
#include <cstdio>

namespace shoehorn::cli {

namespace {

void printProcess(const char *when, const ProcessMemory &m)
{
    std::fprintf(stderr, "memory: %s anonymous=%llu file=%llu\n", when,
                 static_cast<unsigned long long>(m.anonymousBytes), static_cast<unsigned long long>(m.fileBytes));
}

uint64_t growth(uint64_t now, uint64_t before)
{
    return now > before ? now - before : 0;
}

void printPart(const char *when, const char *part, uint64_t planned, uint64_t actual)
{
    const double err = planned ? 100.0 * (double(actual) - double(planned)) / double(planned) : 0.0;
    std::fprintf(stderr, "memory: part=%s/%s planned=%llu actual=%llu error_pct=%+.1f (%s planned, %s actual)\n", part, when,
                 static_cast<unsigned long long>(planned), static_cast<unsigned long long>(actual), err,
                 formatBytes(planned).c_str(), formatBytes(actual).c_str());
}

// Speculation's second context (a draft model, or the MTP layers) on one device: llama.cpp's
// buffers of it against the plan, each kind on its own.
void printDraft(const std::string &where, const MemoryUse &plan, const MemoryUse &got)
{
    if (plan.draft() == 0 && got.draft() == 0)
        return;
    printPart("after-load", (where + "_weights").c_str(), plan.draftWeights, got.draftWeights);
    printPart("after-load", (where + "_kv").c_str(), plan.draftKv, got.draftKv);
    printPart("after-load", (where + "_compute").c_str(), plan.draftCompute, got.draftCompute);
}

} // namespace

MemoryReport::MemoryReport(const Args &a, const ContextSettings &context) : m_on(a.memoryReport)
{
    if (!m_on)
        return;
    auto info = inspectModel(a.model);
    if (info) {
        PlanSettings s;
        s.load = a.load;
        s.context = context;
        s.parallel = a.parallel;
        s.serverLoop = true; // chat runs the model on Shoehorn's server loop, with its one slot
        if (auto d = draftModelInfo(context.speculation)) // unreadable: the chat says why
            s.draftModel = *d;
        m_plan = analyticPlan(*info, s, targetFromHardware(probeHardware()));
    }
    std::fprintf(stderr, "memory: plan anonymous=%llu file_pages=%llu locked=%d\n",
                 static_cast<unsigned long long>(m_plan.anonymousBytes()),
                 static_cast<unsigned long long>(m_plan.mmapResidentBytes), m_plan.mmapLocked ? 1 : 0);
    m_gpusBefore = probeHardware().gpus;
    m_before = processMemory();
    printProcess("before-load", m_before);
}

void MemoryReport::afterLoad(const ChatSession &session)
{
    if (!m_on)
        return;
    m_loaded = processMemory();
    printProcess("after-load", m_loaded);
    // Per GPU: llama.cpp's own buffers there (weights, KV, compute), and what the device lost
    // (the buffers plus what CUDA itself takes for them, e.g. cuBLAS workspaces).
    const MemoryPlan measured = measuredPlan(session, m_plan);
    const std::vector<GpuInfo> gpusNow = probeHardware().gpus;
    for (size_t i = 0; i < m_plan.gpus.size(); ++i) {
        const std::string name = m_plan.gpus[i].name;
        const MemoryUse &plan = m_plan.gpus[i].use;
        const uint64_t planned = plan.total();
        if (i < measured.gpus.size()) {
            // llama.cpp's buffers: the plan without the driver's own share (not a buffer), and
            // each kind of them on its own.
            const MemoryUse &got = measured.gpus[i].use;
            printPart("after-load", (name + "/buffers").c_str(), planned - plan.overhead, got.total() - got.overhead);
            printPart("after-load", (name + "/weights").c_str(), plan.weights(), got.weights());
            printPart("after-load", (name + "/kv").c_str(), plan.kv(), got.kv());
            printPart("after-load", (name + "/compute").c_str(), plan.compute, got.compute);
            printDraft((name + "/draft").c_str(), plan, got);
        }
        if (i < m_gpusBefore.size() && i < gpusNow.size())
            printPart("after-load", (name + "/device").c_str(), planned,
                      growth(m_gpusBefore[i].freeBytes, gpusNow[i].freeBytes));
    }
    // Devices llama.cpp loaded on that the plan does not have: said, not left out.
    for (size_t i = m_plan.gpus.size(); i < measured.gpus.size(); ++i)
        printPart("after-load", (measured.gpus[i].name + "/buffers").c_str(), 0, measured.gpus[i].use.total());
    printDraft("RAM/draft", m_plan.ram.use, measured.ram.use);
    // Compute buffers are allocated but mostly untouched yet; mapped weights not read yet.
    printPart("after-load", "anonymous", m_plan.anonymousBytes(), growth(m_loaded.anonymousBytes, m_before.anonymousBytes));
    printPart("after-load", "file_pages", m_plan.mmapResidentBytes, growth(m_loaded.fileBytes, m_before.fileBytes));
}

// Actual = growth from just before the load to just after the answer: KV and compute pages are
// touched by then, and mapped weights only where the answer read them (the plan's file pages
// are every plain weight resident); file growth also holds the repacked weights' file pages,
// read once at load and left mapped until the kernel reclaims them.
void MemoryReport::afterAnswer() const
{
    if (!m_on)
        return;
    const ProcessMemory now = processMemory();
    printProcess("after-answer", now);
    printPart("after-answer", "anonymous", m_plan.anonymousBytes(), growth(now.anonymousBytes, m_before.anonymousBytes));
    printPart("after-answer", "file_pages", m_plan.mmapResidentBytes, growth(now.fileBytes, m_before.fileBytes));
}

} // namespace shoehorn::cli
