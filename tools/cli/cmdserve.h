#pragma once

#include "cliargs.h"

namespace shoehorn::cli {

// shoehorn-cli serve ARGS...: llama-server's command line (argv after "serve"), the model fitted
// to this machine, until SIGTERM/SIGINT; with --models-preset and no -m, llama-server's router.
int cmdServe(int argc, char **argv);

} // namespace shoehorn::cli
