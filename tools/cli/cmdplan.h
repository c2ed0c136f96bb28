#pragma once

#include "cliargs.h"
#include "modelinfo.h"
#include "planner.h"

namespace shoehorn::cli {

// shoehorn-cli plan: memory per device for these settings (analytic, or llama.cpp's dry run).
int cmdPlan(const Args &args);
// shoehorn-cli fit: the fastest settings that fit the target, and why.
int cmdFit(const Args &args);
// --mmproj: checks that the projector belongs to `model` and puts its memory (llama.cpp's dry
// run of it, after the isolated check of the file unless `checkFile` is false) into `settings`.
// 0, or the exit code after printing why.
int addProjector(const Args &args, const ModelInfo &model, PlanSettings &settings);
Error projectorInPlan(const std::string &mmproj, bool offload, const ModelInfo &model, PlanSettings &settings,
                      bool checkFile);

} // namespace shoehorn::cli
