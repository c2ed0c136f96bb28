#pragma once

#include <string>
#include <vector>

namespace shoehorn::cli {

// shoehorn-cli rpc-worker [--host 127.0.0.1] [--port 50052] [--threads N] [--device NAME,...] [--cache]:
// llama.cpp's RPC server on this machine's devices until SIGTERM/SIGINT (exit 0). Exit 2 for a
// bad flag, an unknown device or a port in use.
int cmdRpcWorker(int argc, char **argv);
// The helper process of probeRemote(): one worker's devices as JSON on stdout.
int cmdRpcProbe(const std::string &endpoint);
// --rpc on chat, plan, fit, bench, parity, tune and serve: each worker is probed in a helper, the
// devices of those that answer join this process's; the rest are named on stderr and left out.
// Prints one line per machine. Returns the number attached.
int attachRpc(const std::vector<std::string> &endpoints);

} // namespace shoehorn::cli
