#pragma once

#include "cliargs.h"

namespace shoehorn::cli {

// shoehorn-cli serve: llama.cpp's server on the model, fitted to this machine, until SIGTERM/SIGINT.
int cmdServe(const Args &args);

} // namespace shoehorn::cli
