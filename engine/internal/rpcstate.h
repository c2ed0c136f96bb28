#pragma once

// Engine-internal: whether an RPC worker (another machine's devices) stopped answering. ggml-rpc
// is compiled with Shoehorn's change (cmake/LlamaRpc.cmake): a dead worker fails the graph
// instead of aborting the process, and the first such worker is remembered here.

#include "error.h"

#include <optional>

namespace shoehorn::internal {

// RemoteFailed naming the worker, when one stopped answering in this process; else nothing.
std::optional<Error> remoteFailure();

} // namespace shoehorn::internal
