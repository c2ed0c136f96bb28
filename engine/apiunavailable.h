#pragma once

#include "apiserver.h"
#include "error.h"

#include <memory>
#include <string>

namespace shoehorn {

// The local API's address while the loaded model is not there for it (auto-tune measures other
// settings, #30): every route answers 503 with Retry-After and the reason, as llama-server
// answers while it loads a model; the key, the allowed web origins and the Host check are the
// API's own. It holds no model, no context and no slot. Closed when destroyed.
class ApiUnavailableDoor
{
public:
    // AddressInUse or InvalidArgument as ApiServer::open says them.
    static Result<std::unique_ptr<ApiUnavailableDoor>> open(const ApiServerOptions &options, const std::string &why,
                                                            int retryAfterSeconds);
    ~ApiUnavailableDoor();
    ApiUnavailableDoor(const ApiUnavailableDoor &) = delete;
    ApiUnavailableDoor &operator=(const ApiUnavailableDoor &) = delete;
    int port() const;
    ApiStatus status() const; // the requests it turned away, as the API's status counts them

private:
    ApiUnavailableDoor();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
