#include "rpcstate.h"

#include <cstddef>
#include <string>

// Defined in Shoehorn's copy of ggml-rpc.cpp (cmake/LlamaRpc.cmake).
extern "C" size_t shoehorn_rpc_failed_endpoint(char *out, size_t size);

namespace shoehorn::internal {

std::optional<Error> remoteFailure()
{
    char endpoint[256] = {};
    if (shoehorn_rpc_failed_endpoint(endpoint, sizeof endpoint) == 0)
        return std::nullopt;
    const std::string e = endpoint;
    return Error{ErrorCode::RemoteFailed,
                 "the remote machine " + e + " (--rpc) stopped answering: the answer ends here and keeps what was "
                 "written. Load the model again, without " + e + " or once its rpc-worker runs again"};
}

} // namespace shoehorn::internal
