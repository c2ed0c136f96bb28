#pragma once

#include "chattypes.h"
#include "offloadcontroller.h"
#include "plansummary.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

// The sentences of the offload panel that describe numbers: the machine, RAM in its two parts,
// and llama.cpp's dry run against the plan. verified() is the one line under the gauges; the
// rest stands behind Details.
class OffloadTexts
{
    Q_DECLARE_TR_FUNCTIONS(OffloadTexts)
public:
    // Everything under the gauges for what the controller plans now.
    static PlanSummary::Texts summary(const OffloadController &offload);
    static QString hardware(const shoehorn::HardwareInfo &hw, quint64 heldRam);
    // Why no GPU is used: each GPU backend looked for and what was missing (module, driver, GPU).
    static QString noGpu(const shoehorn::HardwareInfo &hw);
    static QString problemSentence(const shoehorn::BackendProblem &p);
    static QStringList cudaLeftToVulkan(const shoehorn::HardwareInfo &hw);
    // A what-if machine, as the plan sees it (nothing of this computer).
    static QString whatIf(const shoehorn::PlanTarget &target);
    static QString ramParts(const OffloadController::RamParts &r);
    // "Images: mmproj-F16.gguf (F16, on the GPU); a 1024×1024 picture takes 1024 tokens, 12% of the context."
    static QString images(const OffloadController::Images &images, uint32_t contextSize);
    static QString exactCheck(const std::optional<ExactCheck> &check, bool running, const shoehorn::MemoryPlan &plan);
    // One line: what checked the plan. Loaded: what llama.cpp allocated per device against the plan
    // (allocated, not resident: right from the load); else llama.cpp's dry run; a what-if machine
    // has nothing to check against.
    struct Verification {
        const shoehorn::MemoryPlan *plan = nullptr;
        const shoehorn::MemoryPlan *measured = nullptr; // the loaded model's allocations, or null
        const std::optional<ExactCheck> *exact = nullptr;
        bool running = false;
        bool whatIf = false;
    };
    static QString verified(const Verification &v);
    // What of a device's use llama.cpp allocates as its buffers, the part a load is compared on:
    // not the projector (libmtmd's) nor a GPU's driver share (its context, BLAS workspace).
    static quint64 llamaBuffers(const shoehorn::MemoryUse &u) { return u.total() - u.projector - u.overhead; }
    // "+2.5%" / "−0.3%": a difference against the plan.
    static QString percent(double value);
};
