#pragma once

#include "modelinfo.h"
#include "planner.h"

// Parts of the analytic plan that llama.cpp's dry run (exactplan.cpp) shares.
namespace shoehorn::internal {

// draft-mtp runs a context of its own on the model's MTP layers: they exist, are loaded
// (LoadSettings::mtpLayers) and draft-mtp is asked for.
bool mtpContext(const ModelInfo &m, const PlanSettings &s);

// The vision projector's weights and compute buffer (PlanSettings::projectorBytes) on its device.
void addProjector(MemoryPlan &plan, const PlanSettings &s);

} // namespace shoehorn::internal
