#pragma once

#include "hardware.h"
#include "modelinfo.h"
#include "planner.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn {

// Values the user pinned; auto-fit keeps them as they are in the request's settings.
struct FitLocks {
    bool gpuLayers = false;
    bool cpuMoeLayers = false;
    bool contextSize = false;
    bool kvType = false;
    bool tensorSplit = false; // -ts given: the layers' split over the devices stays as it is
    bool operator==(const FitLocks &) const = default;
};

enum class FitLock { None, GpuLayers, CpuMoeLayers, ContextSize, KvType };

struct FitRequest {
    PlanSettings settings;          // starting point; locked fields are kept
    FitLocks locks;
    uint64_t marginBytes = 1024 * MiB; // kept free on every GPU
    // Per device in the target's order (a remote worker may need less than a local GPU's
    // driver); devices past its end keep marginBytes.
    std::vector<uint64_t> deviceMarginBytes;
    uint32_t minContext = 4096;     // never shrink below this when the context is not locked
    uint32_t wantedContext = 0;     // 0: settings.context.contextSize, else min(trained, 32768)
};

// Why auto-fit chose what it chose; the UI turns it into one translated sentence.
enum class FitOutcome {
    AllOnGpu,          // every layer and expert on the GPU
    ExpertsOnCpu,      // all layers on the GPU, the experts of the first N layers in RAM
    LayersOnCpu,       // some whole layers in RAM
    CpuOnly,           // no GPU in the target, or none that fits (gpuLeftOut)
    DoesNotFit,        // nothing fits, even with everything unlocked in RAM
    BlockedByLock,     // a fit exists only if `blockingLock` were released
    KvTypeUnusable,    // the KV cache type asked for cannot hold this model's heads (invalidReason)
};

struct FitResult {
    FitOutcome outcome = FitOutcome::DoesNotFit;
    FitLock blockingLock = FitLock::None;
    PlanSettings settings;
    MemoryPlan plan;
    bool reducedContext = false;  // the context was shrunk to fit
    bool quantizedKv = false;     // the KV cache was switched to q8_0 to fit
    std::string invalidReason;    // KvTypeUnusable: validate()'s sentence
    // DoesNotFit: the leanest placement tried (every layer the locks allow in RAM, the smallest
    // context) and whether only the GPUs' margins stood in its way (it fits their free memory).
    MemoryPlan leanest;
    bool marginBlocks = false;
    // CpuOnly on a target with GPUs: no placement leaves the GPUs their margin (with every layer
    // in RAM a GPU still holds the compute buffer for big batches), so the CPU alone runs it:
    // settings.load.devices is {"none"}, llama.cpp's -dev none. marginBlocks: the margin is why.
    bool gpuLeftOut = false;
    bool ok() const
    {
        return outcome != FitOutcome::DoesNotFit && outcome != FitOutcome::BlockedByLock &&
               outcome != FitOutcome::KvTypeUnusable;
    }
};

// Chooses GPU layers, experts-on-CPU layers, context and KV type for the best expected speed:
// as many weights on the GPU as fit, attention and shared weights before routed experts (for
// MoE models the experts of the fewest layers go to RAM before any whole layer does), then the
// wanted context, then f16 KV. With more than one device (local GPUs, remote machines) it also
// chooses the layers' split over them (settings.load.tensorSplit, llama.cpp's -ts) so that each
// keeps its own margin. Works on the analytic plan, so it takes milliseconds.
FitResult autoFit(const ModelInfo &model, const FitRequest &request, const PlanTarget &target);

// One English sentence for logs and shoehorn-cli; the GUI builds its own translated text.
std::string describeFit(const ModelInfo &model, const FitResult &fit, const PlanTarget &target);
const char *fitLockName(FitLock lock);

} // namespace shoehorn
