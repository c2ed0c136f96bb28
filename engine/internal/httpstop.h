#pragma once

// Engine-internal: stopping llama.cpp's HTTP server (httplib) in bounded time. httplib's stop()
// closes the listening socket and then waits for every connection's thread, and a thread reading a
// request waits for its client up to the read timeout (an hour by default): one client that sent
// a byte and went silent kept `serve` from exiting, the window from turning the API off, and the
// port held. After a grace for answers to end, the connections still open are shut down.

#include <chrono>
#include <vector>

struct server_http_context;

namespace shoehorn::internal {

// The connected TCP sockets of this process whose local port is `port` (a server's clients).
std::vector<int> clientSockets(int port);

// Marks the server stopping (cmake/LlamaServer.cmake: open requests end), stops accepting, waits
// up to `grace` for its connections to close, shuts down those left, and joins its thread.
void stopHttp(server_http_context &http, std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

} // namespace shoehorn::internal
