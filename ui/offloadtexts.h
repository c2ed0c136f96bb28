#pragma once

#include "chattypes.h"
#include "offloadcontroller.h"

#include <QCoreApplication>
#include <QString>

#include <optional>

// The sentences of the offload panel that describe numbers: the machine, RAM in its two parts,
// and llama.cpp's dry run against the plan.
class OffloadTexts
{
    Q_DECLARE_TR_FUNCTIONS(OffloadTexts)
public:
    static QString hardware(const shoehorn::HardwareInfo &hw, quint64 heldRam);
    static QString ramParts(const OffloadController::RamParts &r);
    // "Images: mmproj-F16.gguf (F16, on the GPU); a 1024×1024 picture takes 1024 tokens, 12% of the context."
    static QString images(const OffloadController::Images &images, uint32_t contextSize);
    static QString exactCheck(const std::optional<ExactCheck> &check, bool running, const shoehorn::MemoryPlan &plan);
};
