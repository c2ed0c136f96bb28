#include "cmdplan.h"

#include "autofit.h"
#include "clioutput.h"
#include "hardware.h"
#include "modelinfo.h"
#include "planner.h"
#include "projector.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

#include <cstdio>

namespace shoehorn::cli {

namespace {

using nlohmann::ordered_json;

ordered_json useJson(const MemoryUse &u)
{
    return {{"weights_dense", u.weightsDense}, {"weights_experts", u.weightsExperts}, {"kv_full", u.kvFull},
            {"kv_swa", u.kvSwa},               {"recurrent", u.recurrent},            {"compute", u.compute},
            {"overhead", u.overhead},          {"projector", u.projector},            {"draft_weights", u.draftWeights},
            {"draft_kv", u.draftKv},           {"draft_compute", u.draftCompute},     {"total", u.total()}};
}

ordered_json deviceJson(const DevicePlan &d)
{
    return {{"name", d.name},         {"description", d.description}, {"layers", d.layers},
            {"use", useJson(d.use)},  {"available", d.available},     {"capacity", d.capacity}};
}

ordered_json modelJson(const ModelInfo &m)
{
    return {{"path", m.path}, {"name", m.name}, {"architecture", m.architecture}};
}

// With --mmproj: the projector and what a picture costs of the context.
ordered_json projectorJson(const Args &a, uint32_t context)
{
    if (a.mmproj.empty())
        return nullptr;
    auto info = inspectProjector(a.mmproj);
    if (!info)
        return nullptr;
    const int tokens = estimateImageTokens(*info, 1024, 1024);
    return {{"path", a.mmproj},
            {"type", info->projectorType},
            {"precision", info->precision},
            {"on_gpu", a.mmprojOffload},
            {"tokens_1024x1024", tokens},
            {"context_share_1024x1024", context ? double(tokens) / context : 0.0}};
}

void printProjector(const Args &a, uint32_t context)
{
    const ordered_json j = projectorJson(a, context);
    if (j.is_null())
        return;
    const int tokens = j["tokens_1024x1024"].get<int>();
    std::printf("images: %s (%s %s%s); a 1024x1024 picture takes %d tokens, %.1f %% of the %u-token context\n",
                std::filesystem::path(a.mmproj).filename().c_str(), j["type"].get<std::string>().c_str(),
                j["precision"].get<std::string>().c_str(), a.mmprojOffload ? "" : ", on the CPU", tokens,
                context ? 100.0 * tokens / context : 0.0, context);
}

ordered_json planJson(const MemoryPlan &p, const PlanTarget &t)
{
    ordered_json j;
    j["target"] = t.name;
    j["exact"] = p.exact;
    j["gpu_layers"] = p.gpuLayers;
    j["cpu_moe_layers"] = p.cpuMoeLayers;
    j["context"] = p.contextSize;
    j["gpus"] = ordered_json::array();
    for (const auto &g : p.gpus)
        j["gpus"].push_back(deviceJson(g));
    j["ram"] = deviceJson(p.ram);
    // RAM in two parts (MemoryPlan): anonymous + file_pages == use.total.
    j["ram"]["anonymous"] = p.anonymousBytes();
    j["ram"]["file_pages"] = p.mmapResidentBytes;
    j["ram"]["file_pages_locked"] = p.mmapLocked;
    j["mmap_resident"] = p.mmapResidentBytes;
    j["fits"] = p.fits();
    return j;
}

void printUse(const DevicePlan &d)
{
    const MemoryUse &u = d.use;
    std::string projector = u.projector ? "  projector " + formatBytes(u.projector) : std::string();
    if (u.draft()) // speculation's second context: a draft model or the MTP layers
        projector += "  draft " + formatBytes(u.draftWeights) + " + kv " + formatBytes(u.draftKv) + " + compute " +
                     formatBytes(u.draftCompute);
    std::printf("%-6s %-28s weights %10s (experts %10s)  kv %10s  recurrent %9s  compute %10s%s  total %10s / %s%s\n",
                d.name.c_str(), d.description.substr(0, 28).c_str(), formatBytes(u.weights()).c_str(),
                formatBytes(u.weightsExperts).c_str(), formatBytes(u.kvFull + u.kvSwa).c_str(),
                formatBytes(u.recurrent).c_str(), formatBytes(u.compute).c_str(), projector.c_str(),
                formatBytes(u.total()).c_str(), formatBytes(d.available).c_str(), d.fits() ? "" : "  (does not fit)");
}

// RAM in two parts (MemoryPlan::anonymousBytes(), mmapResidentBytes).
void printRamParts(const MemoryPlan &p)
{
    std::printf("RAM    anonymous %s (only this process: repacked%s weights, KV, compute) + file pages %s",
                formatBytes(p.anonymousBytes()).c_str(), p.mmapResidentBytes || p.mmapLocked ? "" : " and read-in",
                formatBytes(p.mmapResidentBytes).c_str());
    if (p.mmapLocked)
        std::printf(" (locked by --mlock%s)\n",
                    p.mlockCopiedBytes ? (", " + formatBytes(p.mlockCopiedBytes) + " of them of repacked weights").c_str() : "");
    else
        std::printf("%s\n", p.mmapResidentBytes ? " (model file kept by mmap, reclaimable)" : "");
}

void printPlan(const MemoryPlan &p, const PlanTarget &t)
{
    std::printf("plan for %s (%s): -ngl %d --n-cpu-moe %d -c %u\n", t.name.c_str(), p.exact ? "exact" : "analytic",
                p.gpuLayers, p.cpuMoeLayers, p.contextSize);
    for (const auto &g : p.gpus)
        printUse(g);
    printUse(p.ram);
    printRamParts(p);
}

bool targetFor(const Args &a, PlanTarget &target)
{
    if (a.profile.empty()) {
        target = machineTarget(a);
        return true;
    }
    const HardwareProfile *p = findProfile(a.profile);
    if (!p) {
        std::string known;
        for (const auto &b : builtinProfiles())
            known += (known.empty() ? "" : ", ") + b.id;
        usageError("unknown profile " + a.profile + " (known: " + known + ")");
        return false;
    }
    target = targetFromProfile(*p);
    return true;
}

// A -c above the trained length: fit plans for the trained length unless --lock-ctx keeps it,
// and then llama.cpp takes it as given. Printed to stderr, returned for --json.
ordered_json fitWarnings(const ModelInfo &m, const Args &a, const FitResult &f)
{
    ordered_json out = ordered_json::array();
    if (a.contextGiven && !a.locks.contextSize && m.contextLength && a.context.contextSize > m.contextLength) {
        const std::string w = "-c " + std::to_string(a.context.contextSize) +
                              " is above the model's trained context of " + std::to_string(m.contextLength) +
                              " tokens: fit plans for at most " + std::to_string(m.contextLength) +
                              " (--lock-ctx keeps -c as given)";
        std::fprintf(stderr, "warning: %s\n", w.c_str());
        out.push_back(w);
    }
    if (const std::string w = warnAboutContext(m, f.settings.context.contextSize); !w.empty())
        out.push_back(w);
    return out;
}

} // namespace

Error projectorInPlan(const std::string &mmproj, bool offload, const ModelInfo &model, PlanSettings &settings,
                      bool checkFile)
{
    if (mmproj.empty())
        return {};
    auto proj = inspectProjector(mmproj);
    if (!proj)
        return Error{proj.error().code, "--mmproj " + mmproj + ": " + errorMessage(proj.error())};
    if (Error e = checkProjectorMatches(*proj, model))
        return e;
    if (checkFile) // the dry run below is llama.cpp's, in this process
        if (Error e = checkFilesBeforeLoad({}, mmproj, {}))
            return e;
    auto bytes = projectorMemory(mmproj, offload);
    if (!bytes)
        return bytes.error();
    settings.projectorBytes = *bytes;
    settings.projectorOnGpu = offload;
    return {};
}

int addProjector(const Args &a, const ModelInfo &model, PlanSettings &settings)
{
    if (Error e = projectorInPlan(a.mmproj, a.mmprojOffload, model, settings, a.checkFile))
        return fail(e);
    return 0;
}

namespace {

// What plan and fit both start from: the model's tensor table, the machine or profile, and
// the settings the flags give. 0 when all is there, else the exit code (the reason is printed).
int prepare(const Args &a, std::optional<ModelInfo> &info, PlanTarget &target, PlanSettings &settings)
{
    auto inspected = readHeader(a);
    if (!inspected)
        return failFor(a.model, inspected.error());
    info = std::move(*inspected);
    if (!targetFor(a, target))
        return 2;
    settings.load = a.load;
    settings.context = a.context;
    settings.parallel = a.parallel;
    // chat and serve run Shoehorn's server loop: the chat's slot, and -np API slots beside it.
    settings.serverLoop = true;
    settings.apiSlots = a.parallelGiven ? a.parallel : 0;
    // A draft model (-md) is planned beside the model, from its own tensor table.
    auto draft = draftModelInfo(a.context.speculation);
    if (!draft)
        return fail(draft.error());
    settings.draftModel = *draft;
    return addProjector(a, *info, settings);
}

} // namespace

int cmdPlan(const Args &a)
{
    std::optional<ModelInfo> info;
    PlanTarget target;
    PlanSettings s;
    if (const int rc = prepare(a, info, target, s))
        return rc;
    MemoryPlan plan;
    if (a.exact) {
        if (!a.profile.empty()) {
            return usageError("--exact measures this machine's devices; it cannot plan for a profile");
        }
        // The dry run is llama.cpp's, in this process (the projector was checked above).
        if (const int rc = checkBeforeLoad(a.checkFile, a.model, {}, a.context.speculation.draftModel))
            return rc;
        auto e = exactPlan(a.model, s, target);
        if (!e)
            return fail(e.error());
        plan = *e;
    } else {
        plan = analyticPlan(*info, s, target);
    }
    const std::string warning = warnAboutContext(*info, s.context.contextSize);
    if (a.json) {
        ordered_json j{{"model", modelJson(*info)}};
        j.update(planJson(plan, target));
        j["warnings"] = warning.empty() ? ordered_json::array() : ordered_json::array({warning});
        if (!a.mmproj.empty())
            j["projector"] = projectorJson(a, plan.contextSize);
        printJson(j);
    } else {
        printPlan(plan, target);
        printProjector(a, plan.contextSize);
    }
    return 0;
}

int cmdFit(const Args &a)
{
    std::optional<ModelInfo> info;
    PlanTarget target;
    FitRequest r;
    if (const int rc = prepare(a, info, target, r.settings))
        return rc;
    r.locks = a.locks;
    applyMargins(a, r);
    if (!a.contextGiven && !r.locks.contextSize)
        r.settings.context.contextSize = 0; // auto-fit picks: trained length, at most 32768
    const FitResult f = autoFit(*info, r, target);
    const std::string why = describeFit(*info, f, target);
    const ordered_json warnings = fitWarnings(*info, a, f);
    if (a.json) {
        printJson({{"model", modelJson(*info)},
                   {"warnings", warnings},
                   {"ok", f.ok()},
                   {"outcome", static_cast<int>(f.outcome)},
                   {"blocking_lock", fitLockName(f.blockingLock)},
                   {"explanation", why},
                   {"settings",
                    {{"gpu_layers", f.plan.gpuLayers},
                     {"cpu_moe_layers", f.plan.cpuMoeLayers},
                     {"context", f.plan.contextSize},
                     {"type_k", f.settings.context.typeK},
                     {"type_v", f.settings.context.typeV},
                     {"tensor_split", f.plan.gpus.size() > 1 ? f.settings.load.tensorSplit : std::vector<float>{}},
                     {"devices", f.settings.load.devices}}},
                   {"plan", planJson(f.plan, target)},
                   {"projector", projectorJson(a, f.plan.contextSize)}});
    } else {
        const std::string split = (f.plan.gpus.size() > 1 && !f.settings.load.tensorSplit.empty()
                                       ? " -ts " + tensorSplitText(f.settings.load.tensorSplit)
                                       : "") +
                                  (f.settings.load.devices.empty() ? "" : " -dev " + deviceListText(f.settings.load.devices));
        // Without a fit, the plan below is of the settings asked for: not a "settings:" line that a
        // script would take for the fit's answer.
        std::printf("%s\n%s: -ngl %d --n-cpu-moe %d -c %u -ctk %s -ctv %s%s\n", why.c_str(),
                    f.ok() ? "settings" : "asked for (does not fit)", f.plan.gpuLayers,
                    f.plan.cpuMoeLayers, f.plan.contextSize, f.settings.context.typeK.c_str(),
                    f.settings.context.typeV.c_str(), split.c_str());
        printPlan(f.plan, target);
        printProjector(a, f.plan.contextSize);
    }
    return f.ok() ? 0 : 1;
}

} // namespace shoehorn::cli
