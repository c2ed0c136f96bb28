#include "planner.h"
#include "backends.h"

#include "guarded.h"

#include "chatsession.h"
#include "computeestimate.h"
#include "cpuweights.h"
#include "filepages.h"
#include "graphsplit.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "serverloop.h"
#include "logcapture.h"
#include "model.h"

#include <fit.h>
#include <llama-cpp.h>
#include <llama-ext.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>
#include <llama.h>

#include <algorithm>
#include <cmath>

namespace shoehorn {

namespace {

using internal::ComputeShare;
using internal::computeEstimate;
using internal::reservedOutputs;
using internal::sequences;
using internal::takesWeight;

constexpr uint64_t kGpuDriverOverhead = 256 * MiB;

uint64_t pad(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

// Bytes of `n` elements of a (possibly block-quantized) type.
uint64_t typeBytes(ggml_type t, uint64_t n)
{
    return n / static_cast<uint64_t>(ggml_blck_size(t)) * ggml_type_size(t);
}

// llama.cpp pads n_ctx to 256 and, with several sequences (non-unified KV, the default),
// gives each sequence its own padded n_ctx/n_seq cells.
struct ContextCells {
    uint32_t total = 0;
    uint32_t perSequence = 0;
};


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

// Which device holds repeating layer il (n_layer for the output layer): llama.cpp puts the
// last `ngl` of the n_layer+1 layers on the GPUs, split by free memory; -1 is the CPU.
struct Placement {
    int ngl = 0;
    int start = 0; // first GPU layer
    std::vector<double> splits;
    int deviceOf(int il) const
    {
        if (splits.empty() || il < start || il - start >= ngl)
            return -1;
        const double f = double(il - start) / ngl;
        for (size_t d = 0; d < splits.size(); ++d)
            if (f < splits[d])
                return static_cast<int>(d);
        return static_cast<int>(splits.size()) - 1;
    }
};

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

// What llama.cpp allocated (or would, for a no_alloc model) per device, laid out like `shape`.
// `loaded`: a real load (not llama.cpp's no_alloc dry run, whose breakdown already counts tensors).
MemoryPlan measuredFromLlama(const llama_model *model, const llama_context *ctx, const MemoryPlan &shape, bool loaded)
{
    const int nDev = llama_model_n_devices(model);
    std::vector<common_device_memory_data> data(static_cast<size_t>(nDev) + 1, common_device_memory_data{0, 0, 0, 0, 0});
    const auto inRam = loaded ? internal::hostWeightBytes(model) : std::map<ggml_backend_buffer_type_t, uint64_t>{};
    for (auto [buft, mb] : llama_get_memory_breakdown(ctx)) {
        if (const auto w = inRam.find(buft); w != inRam.end())
            mb.model = w->second; // a mapped span counts only the weights used in place
        size_t slot = data.size() - 1; // RAM
        ggml_backend_dev_t dev = ggml_backend_buft_get_device(buft);
        if (!ggml_backend_buft_is_host(buft) && dev && ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_CPU) {
            for (int i = 0; i < nDev; ++i)
                if (llama_model_get_device(model, i) == dev)
                    slot = static_cast<size_t>(i);
        }
        data[slot].model += mb.model;
        data[slot].context += mb.context;
        data[slot].compute += mb.compute;
    }

    // Split the measured totals into kinds with the analytic proportions of each device.
    MemoryPlan plan = shape;
    plan.exact = true;
    auto fill = [](DevicePlan &d, const common_device_memory_data &x) {
        const MemoryUse a = d.use;
        const double wShare = a.weights() ? double(a.weightsExperts) / double(a.weights()) : 0.0;
        d.use = MemoryUse{};
        d.use.weightsExperts = static_cast<uint64_t>(std::llround(double(x.model) * wShare));
        d.use.weightsDense = x.model - d.use.weightsExperts;
        const double kvTotal = double(a.kv());
        if (kvTotal > 0) {
            d.use.kvSwa = static_cast<uint64_t>(std::llround(double(x.context) * double(a.kvSwa) / kvTotal));
            d.use.recurrent = static_cast<uint64_t>(std::llround(double(x.context) * double(a.recurrent) / kvTotal));
        }
        d.use.kvFull = x.context - d.use.kvSwa - d.use.recurrent;
        d.use.compute = x.compute;
    };
    for (size_t i = 0; i + 1 < data.size() && i < plan.gpus.size(); ++i)
        fill(plan.gpus[i], data[i]);
    fill(plan.ram, data.back());
    plan.ram.use.overhead += plan.mlockCopiedBytes; // not a llama.cpp buffer (setFilePages)
    return plan;
}

DevicePlan &deviceFor(MemoryPlan &plan, int d)
{
    return d < 0 ? plan.ram : plan.gpus[static_cast<size_t>(d)];
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
RamFileBytes addWeights(MemoryPlan &plan, const ModelInfo &m, const Placement &p, const PlanTarget &t, LoadMode mode)
{
    const int nLayer = static_cast<int>(m.layerCount);
    bool hasOutput = false;
    const TensorInfo *embdTensor = nullptr;
    RamFileBytes file;
    std::vector<bool> plainCpu(m.tensors.size(), false);
    for (size_t i = 0; i < m.tensors.size(); ++i) {
        const TensorInfo &ti = m.tensors[i];
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
        (ti.role == TensorRole::Expert ? use.weightsExperts : use.weightsDense) += bytes;
    }
    if (!hasOutput)
        addTiedOutput(plan, p.deviceOf(nLayer), embdTensor, t);
    file.lockSpan = mlockSpan(m, plainCpu);
    return file;
}

// Each layer's K and V bytes (0 for a layer without attention).
std::vector<uint64_t> layerKvBytes(const ModelInfo &m, const PlanSettings &s, uint64_t contextSize)
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
            d.use.recurrent += (r + st) * 4 * nSeq;
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

// The projector loads its weights by reading the file (no mmap): anonymous memory in RAM.
static void addProjector(MemoryPlan &plan, const PlanSettings &s)
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

MemoryPlan analyticPlan(const ModelInfo &m, const PlanSettings &s, const PlanTarget &t)
{
    MemoryPlan plan;
    const int nLayer = static_cast<int>(m.layerCount);
    const Placement p = place(m, s, t);
    plan.gpuLayers = p.ngl;
    plan.cpuMoeLayers = std::clamp(s.load.cpuMoeLayers, 0, nLayer);
    const ContextCells cells = effectiveContext(m, s.context, s);
    plan.contextSize = cells.total;
    addDevices(plan, t);
    const RamFileBytes file = addWeights(plan, m, p, t, s.load.loadMode);
    for (int il = 0; il < nLayer; ++il)
        ++deviceFor(plan, p.deviceOf(il)).layers;
    addCache(plan, m, s, p);
    addCompute(plan, m, s, p, cells, t);
    setFilePages(plan, s.load.loadMode, file);
    addProjector(plan, s);
    return plan;
}

double planError(const MemoryPlan &a, const MemoryPlan &e)
{
    auto core = [](const MemoryPlan &p) {
        uint64_t s = p.ram.use.weights() + p.ram.use.kv() + p.ram.use.compute;
        for (const auto &g : p.gpus)
            s += g.use.weights() + g.use.kv() + g.use.compute;
        return double(s);
    };
    const double ev = core(e);
    return ev > 0 ? std::fabs(core(a) - ev) / ev : 0.0;
}

Result<MemoryPlan> exactPlan(const std::string &path, const PlanSettings &s, const PlanTarget &t)
{
    return internal::guarded(ErrorCode::LoadFailed, [&]() -> Result<MemoryPlan> {
        auto info = inspectModel(path);
        if (!info)
            return info.error();
        internal::initBackends();
        LogCapture::installLogger();

        ModelParams params(s.load, static_cast<int>(info->layerCount));
        llama_model_params &mp = params.get();
        const internal::LoopSlots slots{s.apiSlots, s.desktopSlot, s.kvUnified};
        const llama_context_params cp =
            s.serverLoop ? internal::loopContextParams(s.context, slots) : contextParams(s.context, s.parallel);

        // The dry run of common_get_device_memory_data(), but counting every CPU buffer type:
        // llama.cpp's own helper skips the CPU "extra" (repacked weight) buffers, which only
        // matters when fitting GPUs, while we plan RAM too.
        mp.no_alloc = true;
        mp.load_mode = LLAMA_LOAD_MODE_NONE;
        // A target whose CPU repacks nothing (see PlanTarget::cpuRepackTypes): no AMX or CPU_REPACK.
        if (!t.cpuAmx && t.cpuRepackTypes.empty())
            mp.use_extra_bufts = false;
        LogCapture capture;
        llama_model_ptr model(llama_model_load_from_file(path.c_str(), mp));
        if (!model) {
            const std::string why = capture.lastError();
            return Error{ErrorCode::LoadFailed,
                         "llama.cpp's dry run could not load the model" + (why.empty() ? std::string() : ": " + why)};
        }
        llama_context_ptr ctx(llama_init_from_model(model.get(), cp));
        if (!ctx) {
            const std::string why = capture.lastError();
            return Error{ErrorCode::ContextFailed, "llama.cpp's dry run could not create the context" +
                                                       (why.empty() ? std::string() : ": " + why)};
        }
        MemoryPlan plan = measuredFromLlama(model.get(), ctx.get(), analyticPlan(*info, s, t), false);
        addProjector(plan, s); // llama.cpp's own dry run of it (projectorMemory) is already exact
        return plan;
    });
}

MemoryPlan measuredPlan(const ChatSession &session, const MemoryPlan &shape)
{
    return measuredFromLlama(internal::llamaModel(*session.model()), internal::llamaContext(session), shape, true);
}

} // namespace shoehorn
