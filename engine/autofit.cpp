#include "autofit.h"

#include "validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace shoehorn {

namespace {

struct Candidate {
    PlanSettings settings;
    MemoryPlan plan;
    double cpuBytesPerToken = 0; // weights read from RAM per generated token: the speed limit
};

uint64_t marginOf(const FitRequest &r, size_t device)
{
    return device < r.deviceMarginBytes.size() ? r.deviceMarginBytes[device] : r.marginBytes;
}

bool fitsWithMargin(const MemoryPlan &p, const FitRequest &r)
{
    for (size_t i = 0; i < p.gpus.size(); ++i)
        if (p.gpus[i].use.total() + marginOf(r, i) > p.gpus[i].available)
            return false;
    return p.ram.use.total() <= p.ram.available;
}

// What each device may hold: its free memory less its margin.
std::vector<double> usable(const FitRequest &r, const PlanTarget &t)
{
    std::vector<double> u;
    for (size_t i = 0; i < t.gpus.size(); ++i)
        u.push_back(std::max(0.0, double(t.gpus[i].freeBytes) - double(marginOf(r, i))));
    return u;
}

// The plan at this ngl / --n-cpu-moe. One device, or a split the user gave: llama.cpp's own.
// Several: the layers in proportion to what each device may hold, then moved off the devices
// that overflow (each share scaled by room / use) until all fit or the split settles.
MemoryPlan planOnDevices(const ModelInfo &m, const FitRequest &r, const PlanTarget &t, PlanSettings &s)
{
    if (t.gpus.size() < 2 || r.locks.tensorSplit)
        return analyticPlan(m, s, t);
    const std::vector<double> room = usable(r, t);
    s.load.tensorSplit.assign(room.begin(), room.end());
    MemoryPlan p = analyticPlan(m, s, t);
    for (int round = 0; round < 8 && !fitsWithMargin(p, r); ++round) {
        bool changed = false;
        for (size_t i = 0; i < room.size(); ++i) {
            const double use = double(p.gpus[i].use.total());
            if (use > room[i] && s.load.tensorSplit[i] > 0) {
                // A device that overflows with one layer cannot take any (its compute buffer
                // and mask do not shrink with fewer layers): none there.
                const bool none = p.gpus[i].layers <= 1;
                s.load.tensorSplit[i] = none ? 0.0f : float(double(s.load.tensorSplit[i]) * room[i] / use);
                changed = true;
            }
        }
        if (!changed)
            break;
        p = analyticPlan(m, s, t);
    }
    double sum = 0;
    for (float f : s.load.tensorSplit)
        sum += f;
    for (float &f : s.load.tensorSplit) // proportions, as a person would write -ts
        f = sum > 0 ? float(std::round(double(f) / sum * 1000.0) / 1000.0) : 0.0f;
    return p;
}

double cpuBytesPerToken(const ModelInfo &m, const MemoryPlan &p)
{
    const double expertShare = m.isMoe() ? double(m.expertUsedCount) / double(m.expertCount) : 1.0;
    return double(p.ram.use.weightsDense) + double(p.ram.use.weightsExperts) * expertShare;
}

bool kvTypeUsable(const ModelInfo &m, const std::string &type)
{
    // Quantized KV needs head sizes that are whole blocks (llama.cpp refuses the context otherwise).
    return !isQuantizedKvType(type) || (m.headSizeK % 32 == 0 && m.headSizeV % 32 == 0);
}

// The fastest placement at a fixed context and KV type: most layers on the GPU, then the
// fewest expert layers in RAM.
std::optional<Candidate> bestPlacement(const ModelInfo &m, const FitRequest &r, const PlanTarget &t, PlanSettings s)
{
    const int nLayer = static_cast<int>(m.layerCount);
    std::vector<int> ngls;
    if (r.locks.gpuLayers)
        ngls.push_back(s.load.gpuLayers < 0 ? nLayer + 1 : std::min(s.load.gpuLayers, nLayer + 1));
    else if (t.gpus.empty())
        ngls.push_back(0);
    else
        for (int n = nLayer + 1; n >= 0; --n)
            ngls.push_back(n);
    std::vector<int> moes;
    if (r.locks.cpuMoeLayers || !m.isMoe())
        moes.push_back(m.isMoe() ? std::clamp(s.load.cpuMoeLayers, 0, nLayer) : 0);
    else
        for (int n = 0; n <= nLayer; ++n)
            moes.push_back(n);

    for (int ngl : ngls) {
        s.load.gpuLayers = ngl;
        const int firstGpuLayer = std::max(nLayer + 1 - ngl, 0);
        for (int moe : moes) {
            // Layers below the first GPU layer are in RAM with their experts already, so
            // --n-cpu-moe values up to it change nothing: skip them.
            if (!r.locks.cpuMoeLayers && moe > 0 && moe <= firstGpuLayer)
                continue;
            s.load.cpuMoeLayers = moe;
            PlanSettings placed = s;
            MemoryPlan p = planOnDevices(m, r, t, placed);
            if (fitsWithMargin(p, r))
                return Candidate{placed, p, cpuBytesPerToken(m, p)};
        }
    }
    return std::nullopt;
}

std::optional<Candidate> fitAtContext(const ModelInfo &m, const FitRequest &r, const PlanTarget &t, uint32_t ctx,
                                      bool &quantized)
{
    PlanSettings s = r.settings;
    s.context.contextSize = ctx;
    std::vector<std::string> kvs{s.context.typeK};
    if (!r.locks.kvType && s.context.typeK == "f16" && kvTypeUsable(m, "q8_0"))
        kvs.push_back("q8_0");
    std::optional<Candidate> best;
    for (const auto &kv : kvs) {
        if (!kvTypeUsable(m, kv))
            continue;
        PlanSettings k = s;
        k.context.typeK = kv;
        if (kv != r.settings.context.typeK)
            k.context.typeV = kv;
        // Without flash attention llama.cpp refuses a quantized V cache: V stays f16 there
        // (a locked KV type is the user's call, and validate() tells them).
        if (!r.locks.kvType)
            k.context.typeV = allowedTypeV(k.context.typeV, k.context.flashAttention);
        auto c = bestPlacement(m, r, t, k);
        // q8_0 only when it buys speed: it lets more weights onto the GPU.
        if (c && (!best || c->cpuBytesPerToken < best->cpuBytesPerToken * 0.999)) {
            best = c;
            quantized = kv != r.settings.context.typeK;
        }
    }
    return best;
}

FitResult fitOnce(const ModelInfo &m, const FitRequest &r, const PlanTarget &t);

// Whether the margins alone stand in the way: a fit on the GPUs exists without them.
bool marginBlocks(const ModelInfo &m, const FitRequest &r, const PlanTarget &t)
{
    if (r.marginBytes == 0 && r.deviceMarginBytes.empty())
        return false;
    FitRequest noMargin = r;
    noMargin.marginBytes = 0;
    noMargin.deviceMarginBytes.clear();
    const FitResult f = fitOnce(m, noMargin, t);
    return f.ok() && !f.gpuLeftOut;
}

// Nothing fits beside the GPUs' margins, not even every layer in RAM: the CPU alone (-dev none),
// where RAM holds it, unless the user chose the GPU layers or the devices.
std::optional<FitResult> cpuAlone(const ModelInfo &m, const FitRequest &r, const PlanTarget &t)
{
    // GPU layers locked above 0 and a split given are device choices; a list of devices too.
    if (t.gpus.empty() || (r.locks.gpuLayers && r.settings.load.gpuLayers != 0) || r.locks.tensorSplit ||
        !r.settings.load.devices.empty())
        return std::nullopt;
    PlanTarget cpu = t;
    cpu.gpus.clear();
    cpu.otherBackends.clear();
    FitRequest alone = r;
    alone.settings.load.devices = {"none"};
    alone.settings.load.tensorSplit.clear(); // an earlier fit's split and main GPU name no device now
    alone.settings.load.mainGpu = 0;
    FitResult f = fitOnce(m, alone, cpu);
    if (!f.ok())
        return std::nullopt;
    f.gpuLeftOut = true;
    f.plan = analyticPlan(m, f.settings, t); // the target's own: its GPUs there, unused
    f.marginBlocks = marginBlocks(m, r, t);
    return f;
}

FitResult fitOnce(const ModelInfo &m, const FitRequest &r, const PlanTarget &t)
{
    FitResult out;
    uint32_t wanted = r.wantedContext ? r.wantedContext : r.settings.context.contextSize;
    if (wanted == 0)
        wanted = std::min<uint32_t>(m.contextLength ? m.contextLength : 4096, 32768);
    if (m.contextLength && !r.locks.contextSize)
        wanted = std::min(wanted, m.contextLength); // a locked value is the user's call
    std::vector<uint32_t> contexts{wanted};
    if (!r.locks.contextSize)
        for (uint32_t c = wanted / 2; c >= std::max<uint32_t>(r.minContext, 256); c /= 2)
            contexts.push_back(c);
    for (uint32_t ctx : contexts) {
        bool quantized = false;
        if (auto c = fitAtContext(m, r, t, ctx, quantized)) {
            out.settings = c->settings;
            out.plan = c->plan;
            out.quantizedKv = quantized;
            out.reducedContext = ctx < wanted;
            const int nLayer = static_cast<int>(m.layerCount);
            if (c->plan.gpus.empty()) // no GPU in the target, or -dev none given
                out.outcome = FitOutcome::CpuOnly;
            else if (c->plan.gpuLayers < nLayer + 1)
                out.outcome = FitOutcome::LayersOnCpu;
            else if (c->plan.cpuMoeLayers > 0 && m.isMoe())
                out.outcome = FitOutcome::ExpertsOnCpu;
            else
                out.outcome = FitOutcome::AllOnGpu;
            return out;
        }
    }
    if (auto alone = cpuAlone(m, r, t))
        return *alone;
    out.settings = r.settings;
    out.plan = analyticPlan(m, r.settings, t);
    // What the leanest try needed: every layer the locks allow in RAM, the smallest context, the
    // q8_0 cache where it was tried.
    PlanSettings lean = r.settings;
    lean.context.contextSize = contexts.back();
    if (!r.locks.gpuLayers)
        lean.load.gpuLayers = 0;
    if (!r.locks.kvType && lean.context.typeK == "f16" && kvTypeUsable(m, "q8_0")) {
        lean.context.typeK = "q8_0";
        lean.context.typeV = allowedTypeV("q8_0", lean.context.flashAttention);
    }
    out.leanest = analyticPlan(m, lean, t);
    out.marginBlocks = marginBlocks(m, r, t);
    return out;
}

} // namespace

FitResult autoFit(const ModelInfo &m, const FitRequest &request, const PlanTarget &t)
{
    FitRequest r = request;
    // A KV type the model's heads cannot take is the cause to name, not a lack of memory.
    if (Error e = validate(m, r.settings.context)) {
        if (r.locks.kvType) {
            FitResult out;
            out.outcome = FitOutcome::KvTypeUnusable;
            out.settings = r.settings;
            out.invalidReason = e.detail;
            return out;
        }
        r.settings.context.typeK = "f16";
        r.settings.context.typeV = "f16";
    }
    FitResult result = fitOnce(m, r, t);
    if (result.ok())
        return result;
    // Which lock stands in the way? Release them one at a time.
    const std::pair<FitLock, bool FitLocks::*> locks[] = {{FitLock::GpuLayers, &FitLocks::gpuLayers},
                                                         {FitLock::CpuMoeLayers, &FitLocks::cpuMoeLayers},
                                                         {FitLock::ContextSize, &FitLocks::contextSize},
                                                         {FitLock::KvType, &FitLocks::kvType}};
    for (const auto &[lock, member] : locks) {
        if (!(r.locks.*member))
            continue;
        FitRequest relaxed = r;
        relaxed.locks.*member = false;
        // The CPU alone is not what a GPU-layers lock keeps from fitting: its margin sentence stays.
        if (const FitResult f = fitOnce(m, relaxed, t); f.ok() && !(f.gpuLeftOut && result.marginBlocks)) {
            result.outcome = FitOutcome::BlockedByLock;
            result.blockingLock = lock;
            return result;
        }
    }
    return result;
}

const char *fitLockName(FitLock lock)
{
    switch (lock) {
    case FitLock::None: return "none";
    case FitLock::GpuLayers: return "GPU layers";
    case FitLock::CpuMoeLayers: return "experts on CPU";
    case FitLock::ContextSize: return "context";
    case FitLock::KvType: return "KV cache type";
    }
    return "none";
}

std::string describeFit(const ModelInfo &m, const FitResult &f, const PlanTarget &t)
{
    char buf[512];
    const int layers = static_cast<int>(m.layerCount) + 1;
    const auto &p = f.plan;
    const ContextSettings &c = f.settings.context;
    const std::string kv = c.typeK == c.typeV ? c.typeK + " KV" : c.typeK + " K and " + c.typeV + " V cache";
    const std::string ctx = std::to_string(c.contextSize) + " context, " + kv +
                            (f.reducedContext ? " (context reduced to fit)" : "");
    // One local GPU is "the GPU"; remote machines and several devices are named one by one.
    const bool oneGpu = p.gpus.size() == 1 && !p.gpus[0].remote;
    const std::string where = oneGpu ? "the GPU" : "the devices";
    std::string gpu;
    for (const auto &g : p.gpus)
        gpu += (oneGpu ? "; GPU " : (gpu.empty() ? "; " : ", ") + g.name + " ") + formatBytes(g.use.total()) + " of " +
               formatBytes(g.available);
    std::string ram = "; RAM " + formatBytes(p.ram.use.total()) + " of " + formatBytes(p.ram.available);
    uint64_t draft = 0; // speculation's second context on the GPUs: what the fit traded for it
    for (const auto &g : p.gpus)
        draft += g.use.draft();
    if (draft > 0)
        ram += "; speculative decoding's draft context takes " + formatBytes(draft) + " of GPU memory";
    switch (f.outcome) {
    case FitOutcome::AllOnGpu:
        std::snprintf(buf, sizeof buf, "Everything fits on %s: all %d layers, %s%s%s.", where.c_str(), layers,
                      ctx.c_str(), gpu.c_str(), ram.c_str());
        break;
    case FitOutcome::ExpertsOnCpu:
        std::snprintf(buf, sizeof buf,
                      "All %d layers on %s with the experts of the first %d layers in RAM, %s%s%s.", layers,
                      where.c_str(), p.cpuMoeLayers, ctx.c_str(), gpu.c_str(), ram.c_str());
        break;
    case FitOutcome::LayersOnCpu:
        std::snprintf(buf, sizeof buf, "%d of %d layers on %s, the rest in RAM, %s%s%s.", p.gpuLayers, layers,
                      where.c_str(), ctx.c_str(), gpu.c_str(), ram.c_str());
        break;
    case FitOutcome::CpuOnly:
        if (f.gpuLeftOut)
            std::snprintf(buf, sizeof buf, "Nothing fits on the GPU%s: everything runs on the CPU (-dev none), %s%s.",
                          f.marginBlocks ? " with the margin kept free (lower it to use the GPU)" : "", ctx.c_str(),
                          ram.c_str());
        else
            std::snprintf(buf, sizeof buf, "No GPU in %s: everything runs on the CPU, %s%s.", t.name.c_str(),
                          ctx.c_str(), ram.c_str());
        break;
    case FitOutcome::BlockedByLock:
        std::snprintf(buf, sizeof buf, "Nothing fits while %s is locked; unlock it to let auto-fit change it.",
                      fitLockName(f.blockingLock));
        break;
    case FitOutcome::KvTypeUnusable:
        return f.invalidReason;
    case FitOutcome::DoesNotFit: {
        // What the leanest try needed, where: the plan asked for would only say it is too big.
        const MemoryPlan &l = f.leanest;
        std::string lean = "RAM " + formatBytes(l.ram.use.total()) + " of " + formatBytes(l.ram.available);
        for (const auto &g : l.gpus)
            lean += ", " + g.name + " " + formatBytes(g.use.total()) + " of " + formatBytes(g.available);
        std::snprintf(buf, sizeof buf, "The model does not fit in %s: with %d of %d layers on the GPUs and a %u "
                      "context it needs %s%s.", t.name.c_str(), l.gpuLayers, layers, l.contextSize, lean.c_str(),
                      f.marginBlocks ? "; only the margin kept free on the GPUs stands in the way: lower it" : "");
        break;
    }
    }
    return buf;
}

} // namespace shoehorn
