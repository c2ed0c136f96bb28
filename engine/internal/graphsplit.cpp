#include "graphsplit.h"

#include <algorithm>

namespace shoehorn::internal {

namespace {

// ggml's scheduler hands an op whose weight lies in a host buffer in RAM to a GPU that wants it:
// CUDA's and Vulkan's offload_op() take any op with at least 32 rows in the batch (their
// op_offload_min_batch_size, GGML_OP_OFFLOAD_MIN_BATCH). The weight is then copied into that
// GPU's compute buffer for the op, once per ubatch.
constexpr uint64_t kOffloadMinBatch = 32;

bool isDown(const TensorInfo &ti)
{
    return ti.name.find("ffn_down") != std::string::npos;
}

bool isMatrix(const TensorInfo &ti)
{
    return ti.shape[1] > 1;
}

// Whether the offloading GPU o runs the product of a weight that lies in RAM: a batch big
// enough and a size the GPU takes (such a weight lies in o's host buffer: see hostPinned).
bool offloaded(const TensorInfo &ti, const PlanTarget &t, int o, uint64_t batch)
{
    return o >= 0 && batch >= kOffloadMinBatch && isMatrix(ti) && ti.role != TensorRole::Embedding &&
           takesWeight(t, o, ti.bytes);
}

struct ExpertRun {
    int gateUp = -2; // -2: the layer has no such weight
    int down = -2;
};

} // namespace

bool takesWeight(const PlanTarget &t, int d, uint64_t bytes)
{
    if (d < 0)
        return true;
    const uint64_t limit = t.gpus[static_cast<size_t>(d)].maxTensorBytes;
    return limit == 0 || bytes <= limit;
}

bool hostPinned(const TensorInfo &ti, const PlanTarget &t)
{
    const int o = offloadingGpu(t);
    return o >= 0 && takesWeight(t, o, ti.bytes);
}

int weightDevice(const TensorInfo &ti, int placed, int cpuMoeLayers, const PlanTarget &t)
{
    if (ti.role == TensorRole::Expert && ti.layer < cpuMoeLayers)
        placed = -1;
    return takesWeight(t, placed, ti.bytes) ? placed : -1;
}

int offloadingGpu(const PlanTarget &t)
{
    for (size_t g = 0; g < t.gpus.size(); ++g)
        if (!t.gpus[g].remote)
            return static_cast<int>(g);
    return -1;
}

// The output's product (one row per reserved output) moves like any other.
static void placeOutput(const ModelInfo &m, const PlanTarget &t, int outDev, uint64_t outputs, std::vector<ComputeShare> &share)
{
    const int o = offloadingGpu(t);
    const auto slot = [&](int d) -> ComputeShare & { return share[d < 0 ? t.gpus.size() : size_t(d)]; };
    const TensorInfo *outW = nullptr;
    for (const TensorInfo &ti : m.tensors)
        if (ti.name == "output.weight" || (!outW && ti.name == "token_embd.weight"))
            outW = &ti;
    outDev = outW && !takesWeight(t, outDev, outW->bytes) ? -1 : outDev;
    if (outDev < 0 && outW && o >= 0 && outputs >= kOffloadMinBatch && takesWeight(t, o, outW->bytes)) {
        slot(o).output = true;
        slot(o).denseCopy = std::max(slot(o).denseCopy, outW->bytes);
    } else {
        slot(outDev).output = true;
    }
}

std::vector<ComputeShare> splitGraph(const ModelInfo &m, int cpuMoeLayers, const PlanTarget &t,
                                     const std::vector<int> &layerDevice, const std::vector<uint64_t> &layerKv,
                                     uint64_t T, uint64_t outputs)
{
    const int nLayer = static_cast<int>(m.layerCount);
    const int o = offloadingGpu(t);
    std::vector<ComputeShare> share(t.gpus.size() + 1);
    const auto slot = [&](int d) -> ComputeShare & { return share[d < 0 ? t.gpus.size() : size_t(d)]; };

    // A layer left in RAM runs on the offloading GPU when its largest matrix would (its attention
    // then reads a copy of its K and V there).
    std::vector<int> attention(static_cast<size_t>(nLayer));
    std::vector<uint64_t> largestDense(static_cast<size_t>(nLayer), 0);
    std::vector<const TensorInfo *> largest(static_cast<size_t>(nLayer), nullptr);
    std::vector<ExpertRun> experts(static_cast<size_t>(nLayer));
    for (const TensorInfo &ti : m.tensors) {
        if (ti.layer < 0 || ti.layer >= nLayer || ti.role == TensorRole::Expert || !isMatrix(ti))
            continue;
        const TensorInfo *&l = largest[static_cast<size_t>(ti.layer)];
        l = !l || ti.bytes > l->bytes ? &ti : l;
    }
    for (int il = 0; il < nLayer; ++il) {
        const int d = layerDevice[static_cast<size_t>(il)];
        const TensorInfo *l = largest[static_cast<size_t>(il)];
        const bool moved = d < 0 && l && offloaded(*l, t, o, T);
        attention[static_cast<size_t>(il)] = moved ? o : d;
        if (moved) {
            slot(o).denseCopy = std::max(slot(o).denseCopy, l->bytes);
            slot(o).kvCopy = std::max(slot(o).kvCopy, layerKv[static_cast<size_t>(il)]);
        }
        ++slot(attention[static_cast<size_t>(il)]).layers;
    }
    // Each expert product runs where its weight lies, or on the offloading GPU with a copy.
    for (const TensorInfo &ti : m.tensors) {
        if (ti.role != TensorRole::Expert || ti.layer < 0 || ti.layer >= nLayer)
            continue;
        const int lies = weightDevice(ti, layerDevice[static_cast<size_t>(ti.layer)], cpuMoeLayers, t);
        int runs = lies;
        if (lies < 0 && offloaded(ti, t, o, T)) {
            runs = o;
            uint64_t &copy = isDown(ti) ? slot(o).downCopy : slot(o).gateUpCopy;
            copy = std::max(copy, ti.bytes);
        }
        ExpertRun &r = experts[static_cast<size_t>(ti.layer)];
        int &where = isDown(ti) ? r.down : r.gateUp;
        where = where == -2 || where == runs ? runs : -1; // split between two: the CPU's share
    }
    for (int il = 0; il < nLayer; ++il) {
        const ExpertRun &r = experts[static_cast<size_t>(il)];
        if (r.gateUp == -2 && r.down == -2)
            continue;
        // The last layer sees only the output rows when fewer outputs than tokens are reserved.
        if (il == nLayer - 1 && outputs < T)
            continue;
        const int at = attention[static_cast<size_t>(il)];
        if (r.gateUp == r.down || r.gateUp == -2 || r.down == -2) {
            const int d = r.down == -2 ? r.gateUp : r.down;
            slot(d).experts = true;
            if (d != at)
                slot(at).expertsBack = true;
        } else {
            slot(r.gateUp).gateUpOnly = true;
            slot(r.down).downOnly = true;
            if (r.down != at)
                slot(at).expertsBack = true;
        }
    }
    placeOutput(m, t, layerDevice.back(), outputs, share);
    return share;
}

} // namespace shoehorn::internal
