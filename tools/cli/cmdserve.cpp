#include "cmdserve.h"

#include "cmdrpc.h"
#include "remote.h"

#include "apiserver.h"
#include "autofit.h"
#include "chatsession.h"
#include "clioutput.h"
#include "cmdplan.h"
#include "hardware.h"
#include "model.h"
#include "modelinfo.h"
#include "modelrouter.h"
#include "planner.h"
#include "serverargs.h"
#include "validate.h"

#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shoehorn::cli {

namespace {

// After llama-server's own --help: what Shoehorn does differently (README: "shoehorn-cli serve").
const char *kHelpNote =
    "shoehorn-cli serve takes llama-server's arguments (above), read by llama.cpp's own parser. Shoehorn's\n"
    "differences:\n"
    "  MODEL.gguf            may come first, for -m MODEL.gguf\n"
    "  --no-check            skip the isolated check of the files (-m, --mmproj, -md) before they load\n"
    "                        (Shoehorn's own flag)\n"
    "  -fit on (default)     Shoehorn's planner and auto-fit choose -ngl, --n-cpu-moe, -c and the KV type\n"
    "                        that were not given; -fitt is the MiB kept free on every GPU\n"
    "  --cors-origins        not given: only pages from this machine (localhost) may use the API; llama-server\n"
    "                        allows every site (*). A request from another site or with a Host that is not a\n"
    "                        loopback name (on a loopback --host) is refused with 403\n"
    "  --models-preset F     without -m: router mode, one model loaded at a time (--models-max is ignored);\n"
    "                        with -m refused (llama-server serves the model and ignores the preset)\n"
    "  -np N                 N slots, each with -c / N of the context (-kvu: one pool for all), as llama-server\n"
    "  refused: -hf/-mu (no downloads), --lora, --embedding/--rerank, --models-dir,\n"
    "           --ssl-*, --path, -ot/--n-cpu-ffn (Shoehorn places tensors with -ngl and --n-cpu-moe),\n"
    "           --sleep-idle-seconds (the model stays loaded), --ui-mcp-proxy (/cors-proxy answers 403),\n"
    "           --tools and --mcp-servers-config/--mcp-servers-json (no tools run for clients)\n";

// Shoehorn's own additions before llama-server's parser sees the line: a leading MODEL.gguf
// (or an empty word there), and --no-check. --rpc (and LLAMA_ARG_RPC) are taken out too: llama.cpp's parser connects to
// the workers itself and aborts the process when one is not there; attachRpc() probes each in
// a helper first.
std::vector<std::string> shoehornArgs(int argc, char **argv, bool &checkFile, std::string &rpc)
{
    std::vector<std::string> out;
    if (const char *env = std::getenv("LLAMA_ARG_RPC")) {
        rpc = env;
        unsetenv("LLAMA_ARG_RPC");
    }
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--no-check") {
            checkFile = false;
            continue;
        }
        if (a == "--rpc" && i + 1 < argc) {
            rpc = argv[++i];
            continue;
        }
        // The service's ExecStart passes ${SHOEHORN_MODEL} as one word, empty for a preset.
        if (i == 0 && a.empty())
            continue;
        if (i == 0 && a[0] != '-') {
            out.push_back("-m");
        }
        out.push_back(a);
    }
    return out;
}

// What a restart cannot mend: a flag, a file, a port (README: exit 2, which the service unit does
// not restart). Out of memory, a failed load or a remote machine away may pass: exit 1, and so may
// a file check that did not finish in time on a busy machine (FileCheckFailed: a crash in the
// check, too, is left to systemd's start limit).
bool configurationError(ErrorCode code)
{
    return isFileError(code) || code == ErrorCode::InvalidArgument || code == ErrorCode::ProjectorMismatch ||
           code == ErrorCode::AddressInUse;
}

int serveFailed(const Error &e)
{
    const int rc = fail(e);
    return configurationError(e.code) ? 2 : rc;
}

// The settings to load with: auto-fit for this machine (llama-server's -fit on), or the flags.
Result<PlanSettings> chooseSettings(const ServerArgs &a, bool checkFile)
{
    PlanSettings s{a.load(), a.context(), a.parallel()};
    // llama-server's slots on Shoehorn's server loop: -np of them, no desktop chat.
    s.serverLoop = true;
    s.desktopSlot = false;
    s.apiSlots = a.parallel();
    s.kvUnified = a.kvUnified();
    auto info = inspectModel(a.modelPath());
    if (!info)
        return aboutFile(a.modelPath(), info.error());
    if (Error e = projectorInPlan(a.mmprojPath(), a.mmprojOffload(), *info, s, checkFile))
        return e;
    const PlanTarget target = targetFromHardware(probeHardware(), 0);
    // A context the user gave, before a fit that could only say "nothing fits" (without -c the fit
    // chooses one of at most 32768 itself).
    if (a.contextGiven() || !a.fit().on)
        if (Error e = validateMemory(*info, s.context, target))
            return e;
    if (!a.fit().on) {
        if (Error e = validate(*info, s.context))
            return e;
        return s;
    }
    FitRequest r;
    r.settings = s;
    r.locks = FitLocks{a.gpuLayersGiven(), a.cpuMoeGiven(), a.contextGiven(), a.cacheTypesGiven(),
                       a.tensorSplitGiven()};
    r.marginBytes = a.fit().marginMiB * MiB;
    for (uint64_t m : a.fit().deviceMarginMiB)
        r.deviceMarginBytes.push_back(m * MiB);
    r.minContext = a.fit().minContext;
    if (!a.contextGiven())
        r.settings.context.contextSize = 0; // the trained length, at most 32768
    const FitResult f = autoFit(*info, r, target);
    if (f.outcome == FitOutcome::KvTypeUnusable)
        return Error{ErrorCode::InvalidArgument, f.invalidReason};
    if (!f.ok()) // said once, as the error
        return Error{ErrorCode::OutOfMemory, describeFit(*info, f, target)};
    std::printf("%s\n", describeFit(*info, f, target).c_str());
    return f.settings;
}

// Plans, checks and loads one model as llama-server's arguments describe it.
Result<std::unique_ptr<ChatSession>> openSession(const ServerArgs &a, bool checkFile,
                                                 const std::atomic<bool> *cancel = nullptr)
{
    auto s = chooseSettings(a, checkFile);
    if (!s)
        return s.error();
    std::string draftNote;
    if (checkFile) { // the projector was checked before its dry run, in chooseSettings
        if (Error e = checkFilesBeforeLoad(a.modelPath(), {}, {}, cancel))
            return aboutFile(a.modelPath(), e);
        auto note = dropFailedDraft(s->context.speculation, cancel);
        if (!note)
            return note.error();
        draftNote = *note;
    }
    auto model = Model::load(a.modelPath(), s->load, {}, cancel);
    if (!model)
        return aboutFile(a.modelPath(), model.error());
    // What one slot may fill against the trained length (llama-server caps it with a log line).
    if (a.contextGiven()) {
        const uint32_t slots = uint32_t(std::max(1, a.parallel()));
        cli::warnAboutContext((*model)->info(), a.kvUnified() ? s->context.contextSize : s->context.contextSize / slots);
    }
    ApiSlotSettings slots;
    slots.count = a.parallel();
    slots.desktopSlot = false;
    slots.contextShift = a.contextShift();
    slots.alias = a.alias();
    slots.server = a;
    auto session = ChatSession::create(*model, s->context, slots);
    if (!session)
        return session.error();
    if (Error e = projectorForSession(a.mmprojPath(), a.mmprojOffload(), s->load, s->context, **session))
        return e;
    const std::string split = (s->load.tensorSplit.empty() ? "" : " -ts " + tensorSplitText(s->load.tensorSplit)) +
                              (s->load.devices.empty() ? "" : " --device " + deviceListText(s->load.devices));
    const uint32_t ctx = (*session)->contextSize();
    // What each request may fill, as llama-server divides it.
    const int n = std::max(1, a.parallel());
    const std::string layout = n == 1            ? std::string("one slot")
                               : a.kvUnified()   ? "one KV cache for " + std::to_string(n) + " slots"
                                                 : std::to_string(n) + " slots of " + std::to_string(ctx / uint32_t(n)) + " each";
    const SpeculationSettings &spec = s->context.speculation;
    const bool speculating = spec.on() && (*session)->speculationNote().empty();
    const std::string specText = !speculating ? ""
                                 : " --spec-type " + spec.running() +
                                       (spec.draftModel.empty() ? "" : " -md " + spec.draftModel);
    std::printf("settings: -ngl %d --n-cpu-moe %d%s -c %u (%s) -ctk %s -ctv %s -fa %s -t %d%s\n",
                s->load.gpuLayers, s->load.cpuMoeLayers, split.c_str(), ctx, layout.c_str(),
                s->context.typeK.c_str(), s->context.typeV.c_str(), flashAttentionName(s->context.flashAttention),
                s->context.threads > 0 ? s->context.threads : physicalCoreCount(), specText.c_str());
    printSessionNotes(**session, draftNote);
    std::fflush(stdout);
    return session;
}

// Loud when the server is opened wider than this machine's own programs with a key.
void warnExposure(const ApiServerOptions &o)
{
    if (!ApiServer::isLoopback(o.host))
        std::fprintf(stderr, "WARNING: --host %s: other machines can reach this server (requests need the API key)\n",
                     o.host.c_str());
    if (o.corsOrigins.find('*') != std::string::npos)
        std::fprintf(stderr, "WARNING: --cors-origins %s: every web site you visit may use this server from your browser\n",
                     o.corsOrigins.c_str());
    if (o.apiKeys.empty())
        std::fprintf(stderr, "note: no API key: every program on this machine may use the server (--api-key KEY)\n");
}

std::string describeKeys(const ApiServerOptions &o)
{
    if (o.apiKeys.empty())
        return "none";
    return o.apiKeys.size() == 1 ? "required" : "required (" + std::to_string(o.apiKeys.size()) + " keys)";
}

std::string webUiLine(const ServerArgs &a)
{
    if (!a.webUi())
        return "off";
    const std::string missing = ApiServer::webUiMissing();
    return missing.empty() ? "at /" : "not built in: " + missing;
}

int portInUse(const ApiServerOptions &o, const Error &e)
{
    if (e.code == ErrorCode::AddressInUse && o.port != 0) {
        const int free = ApiServer::freePortAfter(o.host, o.port);
        std::fprintf(stderr, "error: port %d on %s is in use by another program%s\n", o.port, o.host.c_str(),
                     free ? (": --port " + std::to_string(free) + " is free").c_str() : "");
        return 2;
    }
    return serveFailed(e);
}

int waitForSignal(sigset_t &stopSignals)
{
    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::printf("%s: stopping\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    return sig;
}

void printStopped(const ApiStatus &st)
{
    std::printf("stopped after %llu requests (%llu refused)\n", static_cast<unsigned long long>(st.requests),
                static_cast<unsigned long long>(st.refused));
}

int serveRouter(const ServerArgs &a, bool checkFile, sigset_t &stopSignals)
{
    auto presets = a.presets();
    if (!presets) {
        std::fprintf(stderr, "error: %s\n", presets.error().detail.c_str());
        return 2;
    }
    std::string names;
    for (const auto &p : *presets)
        names += (names.empty() ? "" : ", ") + p.name;
    auto router = ModelRouter::open(a, *presets, [checkFile](const ServerPreset &p, const std::atomic<bool> &cancel) {
        return openSession(p.args, checkFile, &cancel);
    });
    if (!router)
        return portInUse(a.http(), router.error());
    const ApiServerOptions o = a.http();
    std::printf("listening on %s/v1 (router: models %s, one loaded at a time, on the first request for it; API key %s, "
                "metrics %s, web UI %s)\n",
                (*router)->baseUrl().c_str(), names.c_str(), describeKeys(o).c_str(), o.metrics ? "on" : "off",
                webUiLine(a).c_str());
    std::fflush(stdout);
    waitForSignal(stopSignals);
    const ApiStatus st = (*router)->status();
    (*router)->close();
    printStopped(st);
    return 0;
}

// What is said before a load of minutes, not after it: a bad address, options or device
// positions, a missing model, a port another program holds. The exit status, or nothing.
std::optional<int> refuseBeforeLoad(const ServerArgs &a, const ApiServerOptions &o, bool rpcDevices)
{
    // An address this machine does not have is said before what serving on it would need.
    if (const Error e = ApiServer::checkHost(o.host)) {
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        return 2;
    }
    if (const Error e = ApiServer::checkOptions(o)) {
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        return 2;
    }
    if (a.modelPath().empty() && a.modelsPreset().empty()) {
        std::fprintf(stderr, "error: serve needs a model: -m MODEL.gguf (or MODEL.gguf first), or --models-preset FILE.ini\n");
        return 2;
    }
    // llama.cpp takes -mg past the GPUs and fails the load (exit 1: the service would restart it).
    if (!rpcDevices)
        if (const Error e = checkDevicePositions(a.load())) {
            std::fprintf(stderr, "error: %s\n", e.detail.c_str());
            return 2;
        }
    warnExposure(o);
    warnAboutThreads(a.context());
    // The open after the load still answers a program that takes the port meanwhile.
    if (o.port != 0 && !ApiServer::portFree(o.host, o.port)) {
        if (o.port < 1024 && ::geteuid() != 0) { // EACCES, not another program
            std::fprintf(stderr, "error: --port %d: ports below 1024 are for root; give one from 1024 up (llama-server's "
                                 "default is 8080)\n", o.port);
            return 2;
        }
        return portInUse(o, Error{ErrorCode::AddressInUse, o.host + ":" + std::to_string(o.port)});
    }
    return std::nullopt;
}

} // namespace

int cmdServe(int argc, char **argv)
{
    bool checkFile = true;
    std::string rpc;
    auto parsed = ServerArgs::parse(shoehornArgs(argc, argv, checkFile, rpc), kHelpNote);
    if (!parsed) {
        std::fprintf(stderr, "error: %s\n", parsed.error().detail.c_str());
        return 2;
    }
    if (!rpc.empty()) {
        auto endpoints = parseEndpoints(rpc);
        if (!endpoints) {
            std::fprintf(stderr, "error: %s\n", endpoints.error().detail.c_str());
            return 2;
        }
        attachRpc(*endpoints);
    }
    const ServerArgs &a = *parsed;
    const ApiServerOptions o = a.http();
    if (const auto refused = refuseBeforeLoad(a, o, !rpc.empty()))
        return *refused;

    // SIGINT/SIGTERM wait for the main thread: blocked before any thread starts, so the
    // server's threads inherit the mask and the signal reaches sigwait below.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    if (a.modelPath().empty())
        return serveRouter(a, checkFile, stopSignals);

    auto session = openSession(a, checkFile);
    if (!session) {
        if (session.error().code == ErrorCode::InvalidArgument) {
            std::fprintf(stderr, "error: %s\n", session.error().detail.c_str());
            return 2;
        }
        return serveFailed(session.error());
    }
    const std::shared_ptr<ApiServer> server = (*session)->api();
    if (Error e = server->open(o))
        return portInUse(o, e);
    const std::string name = !a.alias().empty() ? a.alias() : std::filesystem::path(a.modelPath()).filename().string();
    std::printf("listening on %s/v1 (model \"%s\", API key %s, metrics %s, web UI %s)\n", server->baseUrl().c_str(),
                name.c_str(), describeKeys(o).c_str(), o.metrics ? "on" : "off", webUiLine(a).c_str());
    std::fflush(stdout);
    waitForSignal(stopSignals);
    const ApiStatus st = server->status();
    server->close();
    printStopped(st);
    return 0;
}

} // namespace shoehorn::cli
