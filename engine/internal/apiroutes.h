#pragma once

// Engine-internal: the local API's routes, llama-server's (tools/server/server.cpp), in one table
// for the HTTP side of a loop (ApiServer), the preset router (ModelRouter) and the door that
// answers 503 while the model is being tuned (ApiUnavailableDoor).

#include <server-context.h>
#include <server-http.h>

#include <vector>

namespace shoehorn::internal {

struct RouteSpec {
    enum Method { Get, Post, Delete } method = Get;
    const char *path = "";
    // A handler of the loop's routes; null for the resumable-stream routes, whose handlers are
    // llama.cpp's own factories (make).
    server_http_context::handler_t server_routes::*member = nullptr;
    server_http_context::handler_t (*make)() = nullptr;
    const char *methodName() const { return method == Post ? "POST" : method == Delete ? "DELETE" : "GET"; }
};

// Every route but /health, / and the router's own (/models/load...): the paths llama-server
// serves, /cors-proxy (answered 403: the web UI's MCP proxy is refused at start) included.
const std::vector<RouteSpec> &apiRouteTable();

// Registers `handler` for the route's method and path.
void addRoute(server_http_context &http, const RouteSpec &route, server_http_context::handler_t handler);

// The handler of a route on a loop's routes: llama.cpp's, with the desktop chat's slot
// (-1: none) kept out of /slots and of slot actions (POST /slots/:id_slot).
server_http_context::handler_t routeHandler(const RouteSpec &route, server_routes &routes, int desktopSlot);

// 403 "this feature is disabled", as llama-server answers a feature it was not started with.
server_http_res_ptr featureDisabled();

} // namespace shoehorn::internal
