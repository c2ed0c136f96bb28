#include "cmdplan.h"

#include "planner.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace shoehorn::cli {

namespace {

nlohmann::ordered_json useJson(const MemoryUse &u)
{
    return {{"weights_dense", u.weightsDense}, {"weights_experts", u.weightsExperts}, {"kv_full", u.kvFull},
            {"kv_swa", u.kvSwa},               {"recurrent", u.recurrent},            {"compute", u.compute},
            {"overhead", u.overhead},          {"total", u.total()}};
}

nlohmann::ordered_json deviceJson(const DevicePlan &d)
{
    return {{"name", d.name},         {"description", d.description}, {"layers", d.layers},
            {"use", useJson(d.use)},  {"available", d.available},     {"capacity", d.capacity}};
}

void printUse(const DevicePlan &d)
{
    const MemoryUse &u = d.use;
    std::printf("%-6s %-28s weights %10s (experts %10s)  kv %10s  recurrent %9s  compute %10s  total %10s / %s%s\n",
                d.name.c_str(), d.description.substr(0, 28).c_str(), formatBytes(u.weights()).c_str(),
                formatBytes(u.weightsExperts).c_str(), formatBytes(u.kvFull + u.kvSwa).c_str(),
                formatBytes(u.recurrent).c_str(), formatBytes(u.compute).c_str(), formatBytes(u.total()).c_str(),
                formatBytes(d.available).c_str(), d.fits() ? "" : "  (does not fit)");
}

} // namespace

std::string planToJson(const MemoryPlan &p, const PlanTarget &t)
{
    nlohmann::ordered_json j;
    j["target"] = t.name;
    j["exact"] = p.exact;
    j["gpu_layers"] = p.gpuLayers;
    j["cpu_moe_layers"] = p.cpuMoeLayers;
    j["context"] = p.contextSize;
    j["gpus"] = nlohmann::ordered_json::array();
    for (const auto &g : p.gpus)
        j["gpus"].push_back(deviceJson(g));
    j["ram"] = deviceJson(p.ram);
    j["mmap_resident"] = p.mmapResidentBytes;
    j["fits"] = p.fits();
    return j.dump(2);
}

void printPlan(const MemoryPlan &p, const PlanTarget &t)
{
    std::printf("plan for %s (%s): -ngl %d --n-cpu-moe %d -c %u\n", t.name.c_str(), p.exact ? "exact" : "analytic",
                p.gpuLayers, p.cpuMoeLayers, p.contextSize);
    for (const auto &g : p.gpus)
        printUse(g);
    printUse(p.ram);
    if (p.mmapResidentBytes)
        std::printf("(RAM includes %s of model file pages kept by mmap)\n", formatBytes(p.mmapResidentBytes).c_str());
}

} // namespace shoehorn::cli
