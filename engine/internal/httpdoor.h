#pragma once

// Engine-internal: who may use the local API's HTTP door. Compiled into llama.cpp's server
// library (cmake/LlamaServer.cmake), whose request handler asks these before any route:
//   - the Host header, against DNS rebinding (a web page whose name resolves to 127.0.0.1);
//   - the Origin header, for cross-origin permission (CORS) from a list;
//   - the API key, compared in constant time.
// Plain strings in and out: no cpp-httplib here, so the rules are tested on their own.

#include <string>
#include <vector>

namespace shoehorn::internal {

// The host part of a Host header or an origin's authority: "localhost" of "localhost:8080",
// "::1" of "[::1]:8080", lower case. Empty when it cannot be read.
std::string hostOf(const std::string &authority);
// "localhost", any 127.x.y.z, "::1".
bool isLoopbackName(const std::string &host);

// The Host names a server bound to `boundHost` answers to: for a loopback address, the loopback
// names and the address itself (a rebinding page names its own domain); for any other, none
// (empty: every Host is taken; a key is required there).
std::vector<std::string> allowedHostsFor(const std::string &boundHost);
// True when the request's Host header names one of `allowed` (any port), or `allowed` is empty,
// or there is no Host header (HTTP/1.0 clients; browsers always send one).
bool hostAllowed(const std::string &hostHeader, const std::vector<std::string> &allowed);

struct CorsVerdict {
    bool allowed = true;        // false: refuse the request (403)
    std::string allowOrigin;    // the Access-Control-Allow-Origin to send; empty: none
};
// `origins` is llama-server's --cors-origins: "*" (any origin, as upstream), or a comma-separated
// list whose entries are exact origins ("https://app.example:3000") or "localhost" (any loopback
// origin, any port). A request without an Origin is not a browser's cross-origin request; one
// whose origin is this server's own (the web UI, scheme-less compare of host and port with the
// Host header) is always allowed.
CorsVerdict corsFor(const std::string &origin, const std::string &hostHeader, const std::string &origins,
                    bool credentials);

// The key from "Authorization: Bearer K" (or the bare value, or X-Api-Key), compared with every
// configured key in time that depends only on the lengths.
bool keyMatches(const std::vector<std::string> &keys, const std::string &given);

// Messages for the refusals, naming what was wrong and the flag that changes it.
std::string hostRefusal(const std::string &hostHeader);
std::string originRefusal(const std::string &origin, const std::string &origins);

} // namespace shoehorn::internal
