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
    };
    // A KV cache type this model's heads cannot take, in words (empty: none).
    static QString unusableKv(const shoehorn::ModelInfo &info, const shoehorn::ContextSettings &context);
    static QString text(const Input &in);
    // " Split: RPC0 12 layers (…), CUDA0 37 layers (…)." with more than one device, else empty.
    static QString splitText(const shoehorn::MemoryPlan &plan);
    // "the remote machine HOST:PORT", "the devices RPC0, CUDA0"; empty for one local GPU.
    static QString devicesText(const shoehorn::MemoryPlan &plan);

private:
    static QString fitText(const shoehorn::FitResult &fit, const shoehorn::ModelInfo &info, const QString &targetName);
};
