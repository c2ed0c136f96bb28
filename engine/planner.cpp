#include "planner.h"

#include "computeestimate.h"
#include "cpuweights.h"
#include "graphsplit.h"
#include "llamaparams.h"
#include "planparts.h"

#include <ggml.h>

#include <algorithm>
#include <cmath>

namespace shoehorn {

namespace {

using internal::ComputeShare;
using internal::computeEstimate;
using internal::reservedOutputs;
using internal::sequences;
using internal::addProjector;
using internal::mtpContext;
using internal::takesWeight;
using internal::ContextCells;
using internal::Placement;
using internal::deviceFor;
using internal::layerKvBytes;
using internal::trunkLayers;
using internal::addDraftModel;
using internal::addMtpContext;

constexpr uint64_t kGpuDriverOverhead = 256 * MiB;

uint64_t pad(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}


bool isMtpLayer(const ModelInfo &m, int il)
{
    return il >= trunkLayers(m) && il < int(m.layerCount);
}

// Where llama.cpp keeps the MTP blocks' KV out of the main context and gives the MTP context
// only theirs (llama_model::create_memory: the Qwen3.5 family). Elsewhere both hold every layer.
bool nextnKvApart(const ModelInfo &m)
{
    return m.architecture == "qwen35moe" || m.architecture == "qwen35" || m.architecture == "qwen3next";
}

// Recurrent states kept per sequence for speculation's rollback (llama_context n_rs_seq): a
// drafting type that needs them (common_params_speculative::need_n_rs_seq) asks for as many
// as it drafts, on the architectures that roll back that way (llm_arch_supports_rs_rollback).
uint64_t rollbackStates(const ModelInfo &m, const SpeculationSettings &spec)
{
    static const char *const archs[] = {"qwen35",         "qwen35moe", "qwen4exp", "deepseek4",  "nemotron_h",
                                        "nemotron_h_moe", "lfm2",      "lfm2moe",  "bailingmoe3"};
    if (std::none_of(std::begin(archs), std::end(archs), [&](const char *a) { return m.architecture == a; }))
        return 0;
    std::string types = ",";
    types += spec.running();
    types += ',';
    for (const char *t : {",draft-mtp,", ",draft-eagle3,", ",draft-dflash,", ",draft-dspark,"})
        if (types.find(t) != std::string::npos)
            return spec.draftMax > 0 ? uint64_t(spec.draftMax) : 3; // llama.cpp's default --spec-draft-n-max
    return 0;
}


// Bytes of `n` elements of a (possibly block-quantized) type.
uint64_t typeBytes(ggml_type t, uint64_t n)
{
    return n / static_cast<uint64_t>(ggml_blck_size(t)) * ggml_type_size(t);
}



// One KV pool for every sequence (llama.cpp's kv_unified), or one stream of cells per sequence.
bool unifiedCache(const PlanSettings &s)
{
    return s.serverLoop && (s.desktopSlot || s.kvUnified);
}

ContextCells effectiveContext(const ModelInfo &m, const ContextSettings &c, const PlanSettings &s)
{
    uint32_t n = c.contextSize == 0 ? m.contextLength : c.contextSize;
    if (n == 0)
        n = 4096;
    const uint32_t nSeq = static_cast<uint32_t>(sequences(s));
    ContextCells cells;
    cells.total = static_cast<uint32_t>(pad(n, 256));
    // A unified cache (Shoehorn's loop in the app, serve with -kvu) is one pool that every
    // sequence may fill; otherwise each sequence gets its part, padded as llama_context pads it.
    const bool unified = unifiedCache(s);
    cells.perSequence = nSeq > 1 && !unified ? static_cast<uint32_t>(pad(cells.total / nSeq, 256)) : cells.total;
    cells.total = unified ? cells.total : cells.perSequence * nSeq;
    return cells;
}


Placement place(const ModelInfo &m, const PlanSettings &s, const PlanTarget &t)
{
    Placement p;
    const int nLayer = static_cast<int>(m.layerCount);
    if (t.gpus.empty())
        return p;
    const int requested = s.load.gpuLayers < 0 ? nLayer + 1 : s.load.gpuLayers;
    p.ngl = std::min(requested, nLayer + 1);
    p.start = std::max(nLayer + 1 - p.ngl, 0);
    // -ts where given (missing entries 0), else llama.cpp's default: each device's free memory.
    const auto &ts = s.load.tensorSplit;
    const bool given = std::any_of(ts.begin(), ts.end(), [](float f) { return f > 0; });
    std::vector<double> share;
    for (size_t i = 0; i < t.gpus.size(); ++i)
        share.push_back(given ? (i < ts.size() ? std::max(0.0, double(ts[i])) : 0.0) : double(t.gpus[i].freeBytes));
    double sum = 0;
    for (double x : share)
        sum += x;
    double acc = 0;
    for (double x : share) {
        acc += sum > 0 ? x / sum : 1.0 / double(share.size());
        p.splits.push_back(acc);
    }
    return p;
}


// The target's GPUs and its RAM, with nothing on them yet.
void addDevices(MemoryPlan &plan, const PlanTarget &t)
{
    for (const auto &g : t.gpus) {
        DevicePlan d;
        d.name = g.name;
        d.description = g.description;
        d.available = g.freeBytes;
        d.capacity = g.totalBytes;
        d.remote = g.remote;
        plan.gpus.push_back(d);
    }
    plan.ram.name = "RAM";
    plan.ram.available = t.ramAvailableBytes;
    plan.ram.capacity = t.ramTotalBytes;
}

// Tied embeddings: the output layer of a GPU gets its own copy of token_embd there (token_embd
// stays in RAM), the CPU one only where the CPU repacks it (cpuTiedOutputCopy).
void addTiedOutput(MemoryPlan &plan, int outputDevice, const TensorInfo *embd, const PlanTarget &t)
{
    if (!embd)
        return;
    outputDevice = takesWeight(t, outputDevice, embd->bytes) ? outputDevice : -1;
    deviceFor(plan, outputDevice).use.weightsDense += outputDevice < 0 ? cpuTiedOutputCopy(*embd, t) : embd->bytes;
}

// What the file holds of the CPU-side weights, split by where llama.cpp puts them.
struct RamFileBytes {
    uint64_t plain = 0;    // in the plain CPU buffer: with mmap, the file's own pages
    uint64_t repacked = 0; // read once into AMX/CPU_REPACK (anonymous) buffers
    uint64_t lockSpan = 0; // --mlock: per file, from the first to the end of the last plain weight
};

// --mlock locks each mapping from its start up to the end of the last weight in the mmap
// buffer (llama_mlock::grow_to() in load_all_data()), and load_all_data() then unmaps what lies
// before the first and after the last of them (unmap_fragment): what stays locked is the span
// between, with the repacked and GPU weights that lie inside it. Tensor data follows the tensor
// table's order in GGUF files (ModelInfo::tensors keeps it).
uint64_t mlockSpan(const ModelInfo &m, const std::vector<bool> &plainCpu)
{
    uint64_t span = 0;
    int split = -1;
    uint64_t run = 0, pending = 0; // this file's span so far, and weights after its last plain one
    for (size_t i = 0; i < m.tensors.size(); ++i) {
        const TensorInfo &ti = m.tensors[i];
        if (ti.split != split) {
            span += run;
            split = ti.split;
            run = pending = 0;
        }
        if (plainCpu[i]) {
            run += pending + ti.bytes;
            pending = 0;
        } else if (run > 0) {
            pending += ti.bytes;
        }
    }
    return span + run;
}

// Every weight on the device of its layer, unless internal::weightDevice keeps it in RAM.
// Returns what the file holds of the CPU-side weights (AMX packs them larger).
RamFileBytes addWeights(MemoryPlan &plan, const ModelInfo &m, const Placement &p, const PlanTarget &t, const LoadSettings &load)
{
    const LoadMode mode = load.loadMode;
    const int nLayer = static_cast<int>(m.layerCount);
    bool hasOutput = false;
    const TensorInfo *embdTensor = nullptr;
    RamFileBytes file;
    std::vector<bool> plainCpu(m.tensors.size(), false);
    for (size_t i = 0; i < m.tensors.size(); ++i) {
        const TensorInfo &ti = m.tensors[i];
        const bool mtp = m.mtpLayers > 0 && isMtpLayer(m, ti.layer);
        if (mtp && !load.mtpLayers)
            continue; // not loaded (TENSOR_SKIP)
        int d = -1;
        if (ti.layer >= 0 && ti.layer < nLayer) {
            d = p.deviceOf(ti.layer);
        } else if (ti.role == TensorRole::Output) {
            d = p.deviceOf(nLayer);
            hasOutput |= ti.name == "output.weight";
        } else if (ti.role == TensorRole::Embedding) {
            embdTensor = ti.name == "token_embd.weight" ? &ti : embdTensor;
        }
        d = internal::weightDevice(ti, d, plan.cpuMoeLayers, t);
        // A weight in RAM that the GPU would run lies in its host buffer, which llama.cpp swaps
        // for the plain (mapped) CPU buffer when it maps the file (llama-model-loader.cpp: "avoid
        // using a host buffer when using mmap"): no repacking either way.
        const bool viaHost = d < 0 && internal::hostPinned(ti, t);
        const uint64_t bytes = d < 0 && !viaHost ? cpuWeightBytes(ti, t.cpuAmx) : ti.bytes;
        if (d < 0) {
            plainCpu[i] = viaHost ? mode != LoadMode::NoMmap : !cpuRepacks(ti, t);
            (plainCpu[i] ? file.plain : file.repacked) += ti.bytes;
        }
        MemoryUse &use = deviceFor(plan, d).use;
        (mtp ? use.draftWeights : ti.role == TensorRole::Expert ? use.weightsExperts : use.weightsDense) += bytes;
    }
    if (!hasOutput)
        addTiedOutput(plan, p.deviceOf(nLayer), embdTensor, t);
    file.lockSpan = mlockSpan(m, plainCpu);
    return file;
}

} // namespace

std::vector<uint64_t> internal::layerKvBytes(const ModelInfo &m, const PlanSettings &s, uint64_t contextSize, bool mtp)
{
    const ggml_type tk = kvCacheType(s.context.typeK);
    const ggml_type tv = kvCacheType(s.context.typeV);
    const uint64_t nSeq = static_cast<uint64_t>(sequences(s));
    // llama_kv_cache_iswa: a unified cache keeps the window of every sequence in one pool; split,
    // each sequence's stream keeps its own window, at most its part of the context.
    const uint64_t perStream = unifiedCache(s) ? contextSize : contextSize / nSeq;
    const uint64_t window = unifiedCache(s) ? m.slidingWindow * nSeq : m.slidingWindow;
    const uint64_t swaCells = m.slidingWindow > 0
                                  ? std::min<uint64_t>(perStream, pad(window + s.context.ubatchSize, 256)) *
                                        (unifiedCache(s) ? 1 : nSeq)
                                  : contextSize;
    std::vector<uint64_t> bytes(m.layerCount, 0);
    for (const auto &l : m.layers) {
        if (!l.hasAttention || l.index < 0 || l.index >= static_cast<int>(m.layerCount))
            continue;
        if (m.mtpLayers > 0 && nextnKvApart(m) && isMtpLayer(m, l.index) != mtp)
            continue;
        const uint64_t kvHeads = l.index < static_cast<int>(m.headCountKvPerLayer.size()) &&
                                         m.headCountKvPerLayer.size() > 1
                                     ? static_cast<uint64_t>(m.headCountKvPerLayer[static_cast<size_t>(l.index)])
                                     : m.headCountKv;
        const uint64_t layerCells = l.slidingWindow ? swaCells : contextSize;
        bytes[static_cast<size_t>(l.index)] =
            typeBytes(tk, layerCells * kvHeads * m.headSizeK) + typeBytes(tv, layerCells * kvHeads * m.headSizeV);
    }
    return bytes;
}

namespace {

// KV cache and recurrent state, on the device of their layer (offload_kqv is on).
void addCache(MemoryPlan &plan, const ModelInfo &m, const PlanSettings &s, const Placement &p)
{
    const uint64_t nSeq = static_cast<uint64_t>(sequences(s));
    const std::vector<uint64_t> kv = layerKvBytes(m, s, plan.contextSize);
    for (const auto &l : m.layers) {
        DevicePlan &d = deviceFor(plan, p.deviceOf(l.index));
        if (l.hasAttention && l.index >= 0 && l.index < static_cast<int>(kv.size()))
            (l.slidingWindow ? d.use.kvSwa : d.use.kvFull) += kv[static_cast<size_t>(l.index)];
        if (l.hasRecurrent) {
            const uint64_t conv = m.ssmConvKernel > 0 ? m.ssmConvKernel - 1 : 0;
            const uint64_t r = conv * (m.ssmInnerSize + 2ull * m.ssmGroupCount * m.ssmStateSize);
            const uint64_t st = uint64_t(m.ssmStateSize) * m.ssmInnerSize;
            d.use.recurrent += (r + st) * 4 * nSeq * (1 + rollbackStates(m, s.context.speculation));
        }
    }
}

// Compute buffers of every device that runs layers or the output, and the driver overhead of
// each GPU in use.
void addCompute(MemoryPlan &plan, const ModelInfo &m, const PlanSettings &s, const Placement &p,
                const ContextCells &cells, const PlanTarget &t)
{
    const int nLayer = static_cast<int>(m.layerCount);
    const uint64_t T = internal::ubatchTokens(s, cells.perSequence);
    std::vector<int> layerDevice(static_cast<size_t>(nLayer) + 1);
    for (int il = 0; il <= nLayer; ++il)
        layerDevice[static_cast<size_t>(il)] = p.deviceOf(il);
    const std::vector<ComputeShare> share =
        internal::splitGraph(m, plan.cpuMoeLayers, t, layerDevice, layerKvBytes(m, s, plan.contextSize), T,
                             reservedOutputs(s, T));
    // The graph's inputs (the attention mask, the token embeddings) are built on the host, and
    // each device that runs layers gets a copy. With several devices holding every layer and no
    // tensor overrides (--n-cpu-moe), llama.cpp pipelines ubatches through them
    // (llama_context: pipeline_parallel; CUDA and RPC devices take it) and the scheduler keeps
    // GGML_SCHED_MAX_COPIES (4) copies of every input.
    const uint64_t inputs = internal::maskBytes(s, T, cells.perSequence) + T * m.embeddingSize * 4;
    const bool pipelined = plan.gpus.size() > 1 && p.ngl > nLayer && s.load.cpuMoeLayers == 0;
    const uint64_t copies = pipelined ? 3 * inputs : 0;
    for (size_t g = 0; g < plan.gpus.size(); ++g) {
        const ComputeShare &h = share[g];
        if (h.layers > 0 || h.output || h.experts || h.gateUpOnly || h.downOnly)
            plan.gpus[g].use.compute = computeEstimate(m, s, cells.perSequence, true, h) + (h.layers > 0 ? copies : 0);
    }
    // A CPU that runs no attention still holds the inputs until they are copied, and the
    // embeddings' rows, gathered.
    const uint64_t hostInputs = share.back().layers > 0 ? 0 : inputs + T * m.embeddingSize * 4;
    plan.ram.use.compute = std::max(computeEstimate(m, s, cells.perSequence, false, share.back()), hostInputs);
    if (share.back().layers < nLayer)
        plan.ram.use.compute += copies;
    // A GPU that runs anything also holds the driver's context and the BLAS workspace, which
    // llama.cpp does not count in its buffers. A remote device holds only its buffers here: the
    // worker's own driver context is in the free memory it reports.
    for (auto &g : plan.gpus)
        if (g.use.weights() + g.use.compute > 0 && !g.remote)
            g.use.overhead = kGpuDriverOverhead;
}

// RAM in two parts (MemoryPlan::mmapResidentBytes, anonymousBytes()). With mmap the plain CPU
// weights are file pages of the mapping; repacked ones are copied into anonymous buffers (their
// file pages are read once and stay mapped but unused: clean, reclaimable page cache that the
// plan does not count). --no-mmap reads every weight into anonymous buffers. --mlock keeps the
// file pages, locked: the span mlockSpan() finds, repacked weights inside it included, so the
// locked part can exceed the plain weights; the excess (file pages of weights that also have a
// copy) is in ram.use.overhead.
void setFilePages(MemoryPlan &plan, LoadMode mode, const RamFileBytes &file)
{
    plan.mmapLocked = mode == LoadMode::Mlock;
    if (mode == LoadMode::NoMmap)
        return;
    plan.mmapResidentBytes = file.plain;
    if (mode == LoadMode::Mlock && file.lockSpan > file.plain) {
        plan.mlockCopiedBytes = file.lockSpan - file.plain;
        plan.mmapResidentBytes = file.lockSpan;
        plan.ram.use.overhead += plan.mlockCopiedBytes;
    }
}

} // namespace

int internal::trunkLayers(const ModelInfo &m)
{
    return int(m.layerCount) - int(std::min(m.mtpLayers, m.layerCount));
}

DevicePlan &internal::deviceFor(MemoryPlan &plan, int d)
{
    return d < 0 ? plan.ram : plan.gpus[static_cast<size_t>(d)];
}

bool internal::mtpContext(const ModelInfo &m, const PlanSettings &s)
{
    return m.mtpLayers > 0 && s.load.mtpLayers && s.context.speculation.mtp();
}

// The projector loads its weights by reading the file (no mmap): anonymous memory in RAM.
void internal::addProjector(MemoryPlan &plan, const PlanSettings &s)
{
    if (s.projectorBytes == 0)
        return;
    DevicePlan &d = s.projectorOnGpu && !plan.gpus.empty() ? plan.gpus.front() : plan.ram;
    d.use.projector += s.projectorBytes;
}


uint64_t MemoryPlan::anonymousBytes() const
{
    const uint64_t total = ram.use.total();
    return total > mmapResidentBytes ? total - mmapResidentBytes : 0;
}

bool MemoryPlan::fits(uint64_t gpuMargin) const
{
    for (const auto &g : gpus)
        if (!g.fits(gpuMargin))
            return false;
    return ram.fits();
}

MemoryPlan analyticPlan(const ModelInfo &m, const PlanSettings &s, const PlanTarget &machine)
{
    PlanTarget t = machine; // the GPUs this model gets (a backend or --device chosen)
    if (!s.load.devices.empty() || !s.load.backend.empty())
        t.gpus = modelDevices(machine.gpus, machine.otherBackends, s.load);
    MemoryPlan plan;
    const int nLayer = static_cast<int>(m.layerCount);
    const Placement p = place(m, s, t);
    plan.gpuLayers = p.ngl;
    plan.cpuMoeLayers = std::clamp(s.load.cpuMoeLayers, 0, nLayer);
    const ContextCells cells = effectiveContext(m, s.context, s);
    plan.contextSize = cells.total;
    addDevices(plan, t);
    const RamFileBytes file = addWeights(plan, m, p, t, s.load);
    for (int il = 0; il < nLayer; ++il)
        ++deviceFor(plan, p.deviceOf(il)).layers;
    addCache(plan, m, s, p);
    addCompute(plan, m, s, p, cells, t);
    setFilePages(plan, s.load.loadMode, file);
    addProjector(plan, s);
    addMtpContext(plan, m, s, p, cells, t);
    addDraftModel(plan, s, t);
    return plan;
}

} // namespace shoehorn
