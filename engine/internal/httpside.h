#pragma once

// Engine-internal: what the local API's HTTP side and the preset router share on top of
// llama.cpp's HTTP server: the door (engine/internal/httpdoor.h) set up from Shoehorn's options,
// the request log behind ApiStatus, and llama-server's exception wrapper with Shoehorn's error
// bodies. `/` is llama.cpp's web UI where it was built in, else a page that says why not.

#include "apiserver.h"

#include <server-http.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

struct common_params;

namespace shoehorn::internal {

class RequestLog
{
public:
    void noteRequest();
    void noteRefused(const std::string &what); // a request, refused (401, 403)
    void noteError(const std::string &what);   // newest last, at most 10
    // requests, refused and lastErrors of an ApiStatus
    void fill(ApiStatus &status) const;

private:
    mutable std::mutex m_mutex;
    uint64_t m_requests = 0;
    uint64_t m_refused = 0;
    std::deque<std::string> m_errors;
};

// Copies the options into llama-server's parameters (host, port, keys, metrics, CORS) and sets
// the door's Host names and refusal log on the HTTP context (before its init()).
void configureDoor(common_params &params, server_http_context &http, const ApiServerOptions &options,
                   RequestLog &log);

// llama-server's ex_wrapper (an exception becomes an error body; malformed JSON is 400, not
// 500), counting the request and noting an answer of 400 or more in the log.
server_http_context::handler_t wrapHandler(RequestLog &log, const server_http_context &http, const std::string &method,
                                           const std::string &path, server_http_context::handler_t handler);

// An error answer in llama-server's format.
server_http_res_ptr errorResponse(const std::string &message, int type);

// Registers `/` (and the web UI's assets when they are built in).
void addIndexRoutes(const server_http_context &http, bool webUi);
// Whether llama.cpp's web UI is built into this binary, and if not why.
bool webUiBuiltIn();
std::string webUiMissingReason();

} // namespace shoehorn::internal
