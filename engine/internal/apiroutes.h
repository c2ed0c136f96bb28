#pragma once

// Engine-internal: the local API's routes, llama-server's, in one table for the HTTP side of a
// loop (ApiServer) and for the door that answers 503 while the model is being tuned.

#include <server-http.h>

#include <vector>

struct server_routes;

namespace shoehorn::internal {

struct Route {
    bool post = false;
    const char *path = "";
    server_http_context::handler_t handler; // empty without routes
};

// llama-server's API routes (not /health and /, which are public) with their handlers on `r`;
// only the paths when `r` is null. `desktopSlot` (-1: none) is left out of /slots.
std::vector<Route> apiRoutes(server_routes *r, int desktopSlot);

} // namespace shoehorn::internal
