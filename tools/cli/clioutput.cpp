#include "clioutput.h"

#include "validate.h"

#include <cstdio>

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
