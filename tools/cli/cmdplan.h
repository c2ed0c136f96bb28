#pragma once

#include "cliargs.h"

namespace shoehorn::cli {

// shoehorn-cli plan: memory per device for these settings (analytic, or llama.cpp's dry run).
int cmdPlan(const Args &args);
// shoehorn-cli fit: the fastest settings that fit the target, and why.
int cmdFit(const Args &args);

} // namespace shoehorn::cli
