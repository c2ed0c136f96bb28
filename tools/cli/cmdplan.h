#pragma once

#include "planner.h"

#include <string>

namespace shoehorn::cli {

std::string planToJson(const MemoryPlan &plan, const PlanTarget &target);
void printPlan(const MemoryPlan &plan, const PlanTarget &target);

} // namespace shoehorn::cli
