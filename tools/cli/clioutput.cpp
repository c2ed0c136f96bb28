#include "clioutput.h"

#include "projector.h"

#include "filecheck.h"
#include "validate.h"

#include <sched.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace shoehorn::cli {

void printJson(const nlohmann::ordered_json &j)
{
    const std::string text = j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
}

std::string backendsLine(const HardwareInfo &hw)
{
    std::string line = "CPU (" + (hw.backendModules ? hw.cpuVariant + " kernels" : std::string("built in")) + ")";
    for (const GpuInfo &g : hw.gpus)
        line += ", " + g.name + " · " + g.description;
    return line;
}

std::vector<std::string> backendProblemLines(const HardwareInfo &hw)
{
    std::vector<std::string> out;
    for (const BackendProblem &p : hw.backendProblems) {
        switch (p.kind) {
        case BackendProblem::Kind::NoModule:
            if (p.backend == "Vulkan")
                out.push_back("Vulkan: not installed (" + p.detail + " is missing; the package shoehorn-backend-vulkan)");
            else if (p.backend == "CPU")
                out.push_back("CPU: no CPU module in " + p.detail);
            break;
        case BackendProblem::Kind::ModuleFailed:
            out.push_back(p.backend + ": the module did not load: " + p.detail);
            break;
        case BackendProblem::Kind::NoDevice:
            out.push_back(p.backend + ": no device (no " + p.backend + " driver for a GPU here, or no such GPU)");
            break;
        case BackendProblem::Kind::NoDriver:
            out.push_back(p.backend + ": no NVIDIA driver (" + p.detail + " is not installed); NVIDIA cards can run on Vulkan");
            break;
        case BackendProblem::Kind::DriverTooOld:
            out.push_back(p.backend + ": the NVIDIA driver runs CUDA " + p.detail +
                          "; this module needs CUDA 13 (driver 580 or newer): the cards run on Vulkan");
            break;
        case BackendProblem::Kind::CardNotCovered:
            out.push_back(p.backend + ": no code for " + p.detail + "; this card runs on Vulkan");
            break;
        }
    }
    return out;
}

int cmdDevices()
{
    const HardwareInfo hw = probeHardware();
    if (hw.backendModules)
        std::printf("CPU: %s kernels (modules in %s)\n", hw.cpuVariant.c_str(), hw.moduleDir.c_str());
    else
        std::printf("CPU: built in\n");
    for (const GpuInfo &g : hw.gpus) {
        std::printf("%s · %s: %s free of %s%s", g.name.c_str(), g.description.c_str(), formatBytes(g.freeBytes).c_str(),
                    formatBytes(g.totalBytes).c_str(), g.remote ? " (remote)" : "");
        for (const std::string &twin : g.sameCard)
            std::printf("; also seen as %s (not used unless chosen: --backend %s or --device %s)", twin.c_str(),
                        backendOf(twin).c_str(), twin.c_str());
        if (g.maxTensorBytes > 0) // bigger weights stay in RAM: say so before a plan surprises
            std::printf("; weights up to %s each (bigger ones stay in RAM)", formatBytes(g.maxTensorBytes).c_str());
        std::printf("\n");
    }
    if (hw.gpus.empty())
        std::printf("no GPU: models run on the CPU\n");
    for (const std::string &l : backendProblemLines(hw))
        std::printf("%s\n", l.c_str());
    return 0;
}

namespace {

bool g_jsonErrors = false;

int failWith(ErrorCode code, const std::string &text)
{
    std::fprintf(stderr, "error (%s): %s\n", errorCodeName(code), text.c_str());
    if (g_jsonErrors)
        printJson({{"ok", false}, {"code", errorCodeName(code)}, {"detail", text}});
    return 1;
}

} // namespace

void setJsonErrors(bool on)
{
    g_jsonErrors = on;
}

int usageError(const std::string &text)
{
    std::fprintf(stderr, "error: %s\n", text.c_str());
    if (g_jsonErrors)
        printJson({{"ok", false}, {"code", errorCodeName(ErrorCode::InvalidArgument)}, {"detail", text}});
    return 2;
}

int fail(const Error &e)
{
    return failWith(e.code, errorMessage(e));
}

Error aboutFile(const std::string &file, Error e)
{
    const std::string name = std::filesystem::path(file).filename().string();
    if (file.empty() || e.detail.find(file) != std::string::npos || (!name.empty() && e.detail.find(name) != std::string::npos))
        return e;
    e.detail = file + ": " + (e.detail.empty() ? std::string(errorCodeSentence(e.code)) : e.detail);
    return e;
}

int failFor(const std::string &file, const Error &e)
{
    return fail(aboutFile(file, e));
}

std::string warnAboutContext(const ModelInfo &model, uint32_t contextSize)
{
    const std::string w = contextWarning(model, contextSize);
    if (!w.empty())
        std::fprintf(stderr, "warning: %s\n", w.c_str());
    return w;
}

} // namespace shoehorn::cli

namespace shoehorn::cli {

Error projectorForSession(const std::string &mmproj, bool offload, const LoadSettings &load,
                          const ContextSettings &context, ChatSession &session)
{
    if (mmproj.empty())
        return {};
    ProjectorSettings ps;
    ps.offload = offload && load.gpuLayers != 0;
    ps.threads = context.threads;
    auto projector = Projector::load(session.model(), mmproj, ps);
    if (!projector)
        return projector.error();
    return session.setProjector(*projector);
}

int attachProjector(const std::string &mmproj, bool offload, const LoadSettings &load, const ContextSettings &context,
                    ChatSession &session)
{
    if (Error e = projectorForSession(mmproj, offload, load, context, session))
        return fail(e);
    return 0;
}

std::string selfPath()
{
    std::error_code ec;
    return std::filesystem::read_symlink("/proc/self/exe", ec).string();
}

int checkBeforeLoad(bool enabled, const std::string &model, const std::string &mmproj, const std::string &draft)
{
    if (!enabled)
        return 0;
    if (Error e = checkFilesBeforeLoad(model, mmproj, draft))
        return fail(e);
    return 0;
}

std::string cacheFolder()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    return xdg && *xdg ? std::string(xdg) + "/Shoehorn" : home ? std::string(home) + "/.cache/Shoehorn" : std::string();
}

Error checkFileBeforeLoad(const std::string &path, const std::atomic<bool> *cancel)
{
    const std::string self = selfPath();
    const std::string folder = cacheFolder();
    const std::string cache = folder.empty() ? folder : folder + "/checked-files";
    auto verdict = checkFileIsolated(path, self, {}, cache, cancel);
    return verdict ? Error{} : verdict.error();
}

Error checkFilesBeforeLoad(const std::string &model, const std::string &mmproj, const std::string &draft,
                           const std::atomic<bool> *cancel)
{
    if (!model.empty())
        if (Error e = checkFileBeforeLoad(model, cancel))
            return e;
    for (const auto &[flag, path] : {std::pair{"--mmproj", &mmproj}, std::pair{"-md", &draft}}) {
        if (path->empty())
            continue;
        if (Error e = checkFileBeforeLoad(*path, cancel)) {
            e.detail = flaggedVerdict(flag, *path, e);
            return e;
        }
    }
    return {};
}

Result<std::string> dropFailedDraft(SpeculationSettings &s, const std::atomic<bool> *cancel)
{
    if (s.draftModel.empty())
        return std::string();
    Error e = checkFileBeforeLoad(s.draftModel, cancel);
    if (e.code == ErrorCode::Cancelled)
        return e;
    if (!e)
        return std::string();
    const std::string note = flaggedVerdict("-md", s.draftModel, e) + "; speculative decoding is off";
    s = SpeculationSettings();
    return note;
}

void printSessionNotes(const ChatSession &session, const std::string &draftNote)
{
    for (const std::string &note : {draftNote, session.speculationNote()})
        if (!note.empty())
            std::fprintf(stderr, "note: %s\n", note.c_str());
    if (!session.templateFallback().empty())
        std::fprintf(stderr, "note: the model's chat template cannot be used (%s): ChatML stands in for it\n",
                     session.templateFallback().c_str());
}

unsigned usableCpuThreads()
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return unsigned(CPU_COUNT(&set));
    return std::thread::hardware_concurrency();
}

void warnAboutThreads(const ContextSettings &context)
{
    if (const std::string w = threadsWarning(context, usableCpuThreads()); !w.empty())
        std::fprintf(stderr, "warning: %s\n", w.c_str());
}

int cmdCheckFile(const std::string &path)
{
    const Error e = checkFileInProcess(path);
    nlohmann::json j{{"ok", !e}};
    if (e) {
        j["code"] = errorCodeName(e.code);
        j["detail"] = e.detail;
    }
    std::printf("%s\n", j.dump().c_str());
    // The verdict is the JSON (the app reads it whatever the status); run by hand, a refused file
    // also ends with 1 as every other command's failure does.
    return e ? 1 : 0;
}

} // namespace shoehorn::cli
