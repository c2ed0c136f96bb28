#pragma once

#include "modelinfo.h"
#include "planner.h"

#include <cstdint>
#include <vector>

// Parts of the analytic plan (planner.cpp) that its speculation parts (speculationplan.cpp) and
// llama.cpp's dry run (exactplan.cpp) share.
namespace shoehorn::internal {

// llama.cpp pads n_ctx to 256 and, with several sequences (non-unified KV, the default),
// gives each sequence its own padded n_ctx/n_seq cells.
struct ContextCells {
    uint32_t total = 0;
    uint32_t perSequence = 0;
};

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

// The model's MTP (nextn) blocks are the last mtpLayers of block_count: llama.cpp loads their
// weights only with load_mtp (LoadSettings::mtpLayers) and runs them in a context of their own.
int trunkLayers(const ModelInfo &m);

// The plan of GPU d, or of RAM for -1.
DevicePlan &deviceFor(MemoryPlan &plan, int d);

// Each layer's K and V bytes (0 for a layer without attention).
// `mtp`: of the MTP context (the nextn layers, or every layer where llama.cpp keeps them
// together), else of the main context.
std::vector<uint64_t> layerKvBytes(const ModelInfo &m, const PlanSettings &s, uint64_t contextSize, bool mtp = false);

// draft-mtp: a context on the model's own MTP layers, its KV with its layers (speculationplan.cpp).
void addMtpContext(MemoryPlan &plan, const ModelInfo &m, const PlanSettings &s, const Placement &p,
                   const ContextCells &cells, const PlanTarget &t);

// A draft model (-md) on the target's devices (speculationplan.cpp).
void addDraftModel(MemoryPlan &plan, const PlanSettings &s, const PlanTarget &t);

// draft-mtp runs a context of its own on the model's MTP layers: they exist, are loaded
// (LoadSettings::mtpLayers) and draft-mtp is asked for.
bool mtpContext(const ModelInfo &m, const PlanSettings &s);

// The vision projector's weights and compute buffer (PlanSettings::projectorBytes) on its device.
void addProjector(MemoryPlan &plan, const PlanSettings &s);

} // namespace shoehorn::internal
