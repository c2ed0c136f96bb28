#pragma once

#include "error.h"
#include "hardware.h"
#include "modelinfo.h"
#include "settings.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

class ChatSession;

// Everything that decides memory use.
struct PlanSettings {
    LoadSettings load;
    ContextSettings context;
    int parallel = 1; // sequences (llama-server's --parallel)
    // Shoehorn's own server loop (ChatSession): the desktop chat's slot and `apiSlots` for the
    // local API in one unified KV cache of context.contextSize cells, decoded a micro-batch at a
    // time; `parallel` is ignored. The same memory with the API on or off. False: llama.cpp's
    // context with `parallel` sequences, as llama-server and the other tools make it.
    bool serverLoop = false;
    int apiSlots = 0;
    // The loop without the desktop chat's slot (shoehorn-cli serve): `apiSlots` slots, in one
    // unified cache when kvUnified, else one part of the context each (llama-server's -np N).
    bool desktopSlot = true;
    bool kvUnified = true;
    // The vision projector (mmproj): its weights and compute buffer (projectorMemory()), on the
    // first GPU like llama.cpp unless projectorOnGpu is false (--no-mmproj-offload), then in
    // RAM. One copy, shared by the chat and the API. 0: no projector.
    uint64_t projectorBytes = 0;
    bool projectorOnGpu = true;
    // Speculative decoding (context.speculation): the draft model file's tensor table, read by
    // the caller (inspectModel) like the projector's size; null: no draft model, or not read yet
    // (the plan then leaves it out). The model's own MTP layers need nothing here.
    std::shared_ptr<const ModelInfo> draftModel = nullptr;
    bool operator==(const PlanSettings &) const = default;
};

struct MemoryUse {
    uint64_t weightsDense = 0;   // attention, norms, dense FFN, shared experts, embeddings, output
    uint64_t weightsExperts = 0; // routed experts
    uint64_t kvFull = 0;         // KV cache of full-attention layers
    uint64_t kvSwa = 0;          // KV cache of sliding-window layers
    uint64_t recurrent = 0;      // recurrent state of hybrid layers
    uint64_t compute = 0;        // compute buffers of the graph
    uint64_t overhead = 0;       // backend/driver context and allocator slack
    uint64_t projector = 0;      // vision projector (mmproj): its weights and compute buffer
    // Speculative decoding's second context: a draft model's weights, or the model's own MTP
    // (nextn) layers, which load only for it; that context's KV cache and compute buffers.
    uint64_t draftWeights = 0;
    uint64_t draftKv = 0;
    uint64_t draftCompute = 0;
    uint64_t weights() const { return weightsDense + weightsExperts; }
    uint64_t kv() const { return kvFull + kvSwa + recurrent; }
    uint64_t draft() const { return draftWeights + draftKv + draftCompute; }
    uint64_t total() const { return weights() + kv() + compute + overhead + projector + draft(); }
};

struct DevicePlan {
    std::string name;        // "CUDA0", "GPU0", "RAM"
    std::string description;
    MemoryUse use;
    uint64_t available = 0;  // free memory the plan may use
    uint64_t capacity = 0;   // total memory
    int layers = 0;          // repeating layers whose weights live here
    bool remote = false;     // an RPC device (GpuInfo::remote)
    bool fits(uint64_t margin = 0) const { return use.total() + margin <= available; }
};

// RAM comes in two parts: ram.use.total() == anonymousBytes() + mmapResidentBytes.
//  - mmapResidentBytes, "file pages": the model file's own pages that the mapping keeps in RAM
//    for the weights the CPU uses where they lie (plain CPU buffer). Page cache: the kernel can
//    drop them under pressure and read them again (slowly), except with --mlock, where they are
//    locked (mmapLocked) and also cover the file pages of copied weights between them
//    (mlockCopiedBytes). 0 with --no-mmap.
//  - anonymousBytes(), "anonymous": memory only this process holds: weights this CPU repacks
//    into AMX/CPU_REPACK buffers (PlanTarget::cpuAmx, cpuRepackTypes), all weights with
//    --no-mmap, the KV cache, compute buffers. The repacked weights' file pages are read once
//    at load and stay mapped but unused (clean page cache the kernel reclaims first): no part.
// These compare with ProcessMemory (anonymousBytes, fileBytes) growth over a load.
struct MemoryPlan {
    std::vector<DevicePlan> gpus;
    DevicePlan ram;
    uint64_t mmapResidentBytes = 0; // of ram.use: model file pages mmap keeps in RAM
    uint64_t mlockCopiedBytes = 0;  // of mmapResidentBytes (and of ram.use.overhead): --mlock's
                                    // locked file pages of weights that also have a copy
    bool mmapLocked = false;        // --mlock: the file pages are locked, not reclaimable
    int gpuLayers = 0;              // effective (0..layers+1)
    int cpuMoeLayers = 0;           // effective
    uint32_t contextSize = 0;       // effective (padded, clamped)
    bool exact = false;             // from llama.cpp's dry run
    bool fits(uint64_t gpuMargin = 0) const;
    // Of ram.use.total(): what only this process holds (everything but mmapResidentBytes).
    uint64_t anonymousBytes() const;
};

// The draft model's tensor table for PlanSettings::draftModel (a header read): null where the
// speculation names no draft model; the file's problem, named, where it cannot be read.
Result<std::shared_ptr<const ModelInfo>> draftModelInfo(const SpeculationSettings &speculation);

// Fast: from the tensor table and hyperparameters, for live feedback (microseconds).
MemoryPlan analyticPlan(const ModelInfo &model, const PlanSettings &settings, const PlanTarget &target);

// Exact: llama.cpp loads the model and creates the context with no_alloc and reports the
// buffers it would allocate on this machine's devices. Seconds for big models; run it off the
// GUI thread. Not thread-safe with other llama.cpp loads (it swaps llama's logger).
Result<MemoryPlan> exactPlan(const std::string &path, const PlanSettings &settings, const PlanTarget &target);

// What llama.cpp allocated for this session's model and context, laid out like `shape` (an
// analytic plan of the same settings, which also splits the totals into kinds).
MemoryPlan measuredPlan(const ChatSession &session, const MemoryPlan &shape);

// Relative difference of totals, |a-b|/b, for the accuracy table.
double planError(const MemoryPlan &analytic, const MemoryPlan &exact);

} // namespace shoehorn
