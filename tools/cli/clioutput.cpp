#include "clioutput.h"

#include "projector.h"

#include "filecheck.h"
#include "validate.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace shoehorn::cli {

void printJson(const nlohmann::ordered_json &j)
{
    const std::string text = j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    std::printf("%s\n", text.c_str());
}

int fail(const Error &e)
{
    std::fprintf(stderr, "error (%s): %s\n", errorCodeName(e.code), errorMessage(e).c_str());
    return 1;
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

int checkBeforeLoad(const std::string &path, bool enabled)
{
    if (!enabled)
        return 0;
    if (Error e = checkFileBeforeLoad(path))
        return fail(e);
    return 0;
}

std::string cacheFolder()
{
    const char *xdg = std::getenv("XDG_CACHE_HOME");
    const char *home = std::getenv("HOME");
    return xdg && *xdg ? std::string(xdg) + "/Shoehorn" : home ? std::string(home) + "/.cache/Shoehorn" : std::string();
}

Error checkFileBeforeLoad(const std::string &path)
{
    const std::string self = selfPath();
    const std::string folder = cacheFolder();
    const std::string cache = folder.empty() ? folder : folder + "/checked-files";
    auto verdict = checkFileIsolated(path, self, {}, cache);
    return verdict ? Error{} : verdict.error();
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
    return 0;
}

} // namespace shoehorn::cli
