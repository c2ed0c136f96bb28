#pragma once

#include "autofit.h"
#include "modelinfo.h"
#include "planner.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

// The sentence under the offload gauges: what the plan (or the last Auto-fit) does and why.
class FitExplanation
{
    Q_DECLARE_TR_FUNCTIONS(FitExplanation)
public:
    struct Input {
        const std::optional<shoehorn::ModelInfo> *info = nullptr;
        QString path;
        const std::optional<shoehorn::FitResult> *lastFit = nullptr;
        const shoehorn::MemoryPlan *plan = nullptr;
        QString targetName;
        const shoehorn::ContextSettings *context = nullptr; // the settings the plan is for
        bool whatIf = false; // targetName is a what-if machine, not this computer
    };
    // A KV cache type this model's heads cannot take, in words (empty: none).
    static QString unusableKv(const shoehorn::ModelInfo &info, const shoehorn::ContextSettings &context);
    static QString text(const Input &in);
    // The one line under the gauges: "Fits: …" or "Does not fit: … — press Auto-fit", naming a
    // what-if machine; text() is the full explanation behind Details.
    struct Verdict {
        QString text;
        bool fits = true; // false: it says what does not fit (drawn red)
    };
    static Verdict verdict(const Input &in);
    // " Split: RPC0 12 layers (…), CUDA0 37 layers (…)." with more than one device, else empty.
    static QString splitText(const shoehorn::MemoryPlan &plan);
    static QString speculationText(const shoehorn::MemoryPlan &plan);
    // "the remote machine HOST:PORT", "the devices RPC0, CUDA0"; empty for one local GPU.
    static QString devicesText(const shoehorn::MemoryPlan &plan);

private:
    // Where the plan does not fit, by the device's name as its gauge shows it ("CUDA0 needs 7.20 GiB
    // of 5.50 GiB"); empty: it fits.
    static QString overflow(const shoehorn::MemoryPlan &plan);
    static QString fitText(const shoehorn::FitResult &fit, const shoehorn::ModelInfo &info, const QString &targetName);
};
