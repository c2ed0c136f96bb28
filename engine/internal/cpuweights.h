#pragma once

#include "hardware.h"
#include "modelinfo.h"

#include <cstdint>

// Where llama.cpp's CPU backend puts a weight, as the planner needs it: the extra buffer types
// (AMX, CPU_REPACK) that copy a weight out of the file, and the size it takes there.
namespace shoehorn {

// AMX takes this 2-D matrix-multiplied weight (type and row alignment).
bool amxTakes(const TensorInfo &ti);
// What a CPU-side weight takes in RAM: its file size, or AMX's packed size.
uint64_t cpuWeightBytes(const TensorInfo &ti, bool amx);
// The CPU's second copy of a tied token_embd used as the output (0 when there is none).
uint64_t cpuTiedOutputCopy(const TensorInfo &embd, const PlanTarget &t);
// This CPU copies the weight into AMX or CPU_REPACK instead of using it where it lies.
bool cpuRepacks(const TensorInfo &ti, const PlanTarget &t);

} // namespace shoehorn
