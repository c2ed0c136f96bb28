#pragma once

// Engine-internal: what a ServerArgs holds, llama-server's parameters as its parser left them.

#include <common.h>

#include <string>
#include <vector>

namespace shoehorn::internal {

struct ServerArgsData {
    common_params params;
    std::vector<std::string> args; // as given, without the program name (a router's presets merge them)
};

} // namespace shoehorn::internal
