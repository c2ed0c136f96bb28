#include "rpcstate.h"

#include "backends.h"

#include <cstddef>
#include <string>

namespace shoehorn::internal {

std::optional<Error> remoteFailure()
{
    // Defined in Shoehorn's copy of ggml-rpc.cpp (cmake/LlamaRpc.cmake), exported through its registry.
    using FailedEndpoint = size_t (*)(char *out, size_t size);
    const auto failedEndpoint = reinterpret_cast<FailedEndpoint>(rpcProc("shoehorn_rpc_failed_endpoint"));
    char endpoint[256] = {};
    if (!failedEndpoint || failedEndpoint(endpoint, sizeof endpoint) == 0)
        return std::nullopt;
    const std::string e = endpoint;
    return Error{ErrorCode::RemoteFailed,
                 "the remote machine " + e + " (--rpc) stopped answering: the answer ends here and keeps what was "
                 "written. Load the model again, without " + e + " or once its rpc-worker runs again"};
}

} // namespace shoehorn::internal
