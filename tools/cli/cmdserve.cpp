#include "cmdserve.h"

#include "apiserver.h"
#include "autofit.h"
#include "chatsession.h"
#include "clioutput.h"
#include "cmdplan.h"
#include "hardware.h"
#include "model.h"
#include "modelinfo.h"
#include "planner.h"
#include "presetini.h"
#include "projector.h"

#include <sys/stat.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace shoehorn::cli {

namespace {

// --models-preset FILE --model NAME: llama-server's INI, the same the app imports. The
// section's settings apply first; -c and --parallel given on the command line win.
int applyPreset(Args &a)
{
    std::ifstream in(a.modelsPreset);
    if (!in) {
        std::fprintf(stderr, "error: --models-preset %s cannot be read\n", a.modelsPreset.c_str());
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto file = parsePresetIni(text.str());
    if (!file)
        return fail(file.error());
    for (const auto &i : file->issues)
        std::fprintf(stderr, "warning: %s line %d [%s] %s: %s\n", a.modelsPreset.c_str(), i.line,
                     i.section.c_str(), i.key.c_str(), i.message.c_str());
    const ModelPreset *chosen = nullptr;
    std::string names;
    for (const auto &m : file->models) {
        names += (names.empty() ? "" : ", ") + m.name;
        if (m.name == a.presetModel || (a.presetModel.empty() && file->models.size() == 1))
            chosen = &m;
    }
    if (!chosen) {
        std::fprintf(stderr, "error: %s has no section [%s]%s (sections: %s)\n", a.modelsPreset.c_str(),
                     a.presetModel.c_str(), a.presetModel.empty() ? "; name one with --model" : "",
                     names.empty() ? "none" : names.c_str());
        return 2;
    }
    const uint32_t ctx = a.context.contextSize;
    const int parallel = a.parallel;
    chosen->applyTo(a.load, a.context, a.generation);
    if (a.contextGiven)
        a.context.contextSize = ctx;
    a.contextGiven = a.contextGiven || chosen->contextSize.has_value(); // auto-fit keeps it
    a.parallel = a.parallelGiven ? parallel : chosen->parallel.value_or(2);
    if (a.model.empty() && chosen->model) {
        std::filesystem::path p(*chosen->model);
        if (p.is_relative())
            p = std::filesystem::path(a.modelsPreset).parent_path() / p;
        a.model = p.string();
    }
    if (a.mmproj.empty() && chosen->mmproj) {
        std::filesystem::path p(*chosen->mmproj);
        if (p.is_relative())
            p = std::filesystem::path(a.modelsPreset).parent_path() / p;
        a.mmproj = p.string();
    }
    if (a.presetModel.empty())
        a.presetModel = chosen->name;
    if (a.model.empty()) {
        std::fprintf(stderr, "error: [%s] in %s names no model (model = PATH)\n", chosen->name.c_str(),
                     a.modelsPreset.c_str());
        return 2;
    }
    return 0;
}

// --api-key-file: the first line. Warns when others may read the file.
int readKeyFile(Args &a)
{
    std::ifstream in(a.apiKeyFile);
    std::string key;
    if (!in || !std::getline(in, key)) {
        std::fprintf(stderr, "error: --api-key-file %s cannot be read\n", a.apiKeyFile.c_str());
        return 2;
    }
    while (!key.empty() && (key.back() == '\r' || key.back() == ' ' || key.back() == '\t'))
        key.pop_back();
    if (key.empty()) {
        std::fprintf(stderr, "error: --api-key-file %s: the first line is empty\n", a.apiKeyFile.c_str());
        return 2;
    }
    struct stat st {};
    if (::stat(a.apiKeyFile.c_str(), &st) == 0 && (st.st_mode & 077))
        std::fprintf(stderr, "warning: %s can be read by other users (chmod 600 it)\n", a.apiKeyFile.c_str());
    a.apiKey = key;
    return 0;
}

// The settings to load with: auto-fit for this machine (default), or the flags as given.
int chooseSettings(const Args &a, PlanSettings &out)
{
    out = PlanSettings{a.load, a.context, a.parallel};
    auto info = inspectModel(a.model);
    if (!info)
        return fail(info.error());
    if (const int rc = addProjector(a, *info, out))
        return rc;
    if (!a.fit)
        return 0;
    const PlanTarget target = targetFromHardware(probeHardware(), a.vramBudgetMiB * MiB);
    FitRequest r;
    r.settings = out;
    r.locks = a.locks;
    r.marginBytes = a.marginMiB * MiB;
    if (!a.contextGiven && !r.locks.contextSize)
        r.settings.context.contextSize = 0; // trained length, at most 32768
    const FitResult f = autoFit(*info, r, target);
    std::printf("%s\n", describeFit(*info, f, target).c_str());
    if (!f.ok())
        return 1;
    out = f.settings;
    return 0;
}

} // namespace

int cmdServe(const Args &given)
{
    Args a = given;
    if (!a.parallelGiven)
        a.parallel = 2; // as the guides run llama-server
    if (!a.modelsPreset.empty())
        if (const int rc = applyPreset(a))
            return rc;
    if (!a.apiKeyFile.empty())
        if (const int rc = readKeyFile(a))
            return rc;
    ApiServerOptions o;
    o.host = a.host;
    o.port = a.port;
    o.apiKeys = ApiServer::splitKeys(a.apiKey);
    o.metrics = a.metrics;
    if (const Error e = ApiServer::checkOptions(o))
        return fail(e);

    // SIGINT/SIGTERM wait for the main thread: blocked before any thread starts, so the
    // server's threads inherit the mask and the signal reaches sigwait below.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    PlanSettings s;
    if (const int rc = chooseSettings(a, s))
        return rc;
    if (const int rc = checkBeforeLoad(a.model, a.checkFile))
        return rc;
    auto model = Model::load(a.model, s.load);
    if (!model)
        return fail(model.error());
    ApiSlotSettings slots;
    slots.count = a.parallel;
    slots.contextShift = a.contextShift;
    slots.alias = a.presetModel;
    auto session = ChatSession::create(*model, s.context, slots);
    if (!session)
        return fail(session.error());
    if (const int rc = attachProjector(a.mmproj, a.mmprojOffload, s.load, s.context, **session))
        return rc;
    std::printf("settings: -ngl %d --n-cpu-moe %d -c %u (one KV cache for %d API slots and the chat's) -ctk %s -ctv %s -fa %s -t %d\n",
                s.load.gpuLayers, s.load.cpuMoeLayers, (*session)->contextSize(), a.parallel,
                s.context.typeK.c_str(), s.context.typeV.c_str(), flashAttentionName(s.context.flashAttention),
                s.context.threads > 0 ? s.context.threads : physicalCoreCount());
    const std::shared_ptr<ApiServer> server = (*session)->api();
    if (Error e = server->open(o)) {
        if (e.code == ErrorCode::AddressInUse && o.port != 0) {
            const int free = ApiServer::freePortAfter(o.host, o.port);
            std::fprintf(stderr, "error: port %d on %s is in use by another program%s\n", o.port, o.host.c_str(),
                         free ? (": --port " + std::to_string(free) + " is free").c_str() : "");
            return 1;
        }
        return fail(e);
    }
    std::printf("listening on %s/v1 (model \"%s\", API key %s, metrics %s)\n", server->baseUrl().c_str(),
                a.presetModel.empty() ? std::filesystem::path(a.model).filename().c_str() : a.presetModel.c_str(),
                o.apiKeys.empty() ? "none" : "required", o.metrics ? "on" : "off");
    std::fflush(stdout);

    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::printf("%s: stopping\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    const ApiStatus st = server->status();
    server->close();
    std::printf("stopped after %llu requests\n", static_cast<unsigned long long>(st.requests));
    return 0;
}

} // namespace shoehorn::cli
