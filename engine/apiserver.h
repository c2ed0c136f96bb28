#pragma once

#include "error.h"
#include "settings.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

class Model;
namespace internal {
struct Access;
}

// What llama-server's --host, --port, --api-key, --metrics and --cors-origins mean here. The
// slots (--parallel), the context and the projector belong to the session's server loop
// (ChatSession::create), and so do the rest of llama-server's flags (ServerArgs).
struct ApiServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;              // 0: any free port (tests)
    std::vector<std::string> apiKeys; // any one is accepted; none: no key, only allowed on loopback
    bool metrics = false;         // /metrics in Prometheus text format
    // The web pages of other sites that may use the API: "localhost" (pages served from this
    // machine, Shoehorn's default; llama-server's is "*"), a comma-separated list of origins
    // ("https://app.example:3000"), or "*" (any site). The API's own web UI is always allowed.
    std::string corsOrigins = "localhost";
};

struct ApiSlot {
    int id = 0;
    bool busy = false;
    int contextTokens = 0;        // this slot's context
    int promptTokens = 0;         // of its current or last request
    int generatedTokens = 0;
    double tokensPerSecond = 0;   // generation speed since the previous status()
};

struct ApiStatus {
    std::string baseUrl;          // http://127.0.0.1:8080
    uint64_t requests = 0;        // requests that reached a route or were refused (not /health)
    uint64_t refused = 0;         // of them: no or a wrong key (401), a foreign Host or origin (403)
    std::vector<ApiSlot> slotStates; // (not "slots": a Qt keyword in app code)
    std::vector<std::string> lastErrors; // newest last, at most 10: "POST /v1/chat/completions: 400 …"
    // Why every request gets 503 now (the model is being tuned: ApiUnavailableDoor); empty: served.
    std::string unavailable;
};

// The HTTP side of a session's server loop (ChatSession::api()): llama.cpp's own routes, API
// keys and metrics on the slots the loop already has. Opening binds and starts the HTTP threads;
// closing ends open requests and stops them. Neither creates a context or touches the model,
// and the memory stays as it was. Any thread; a session that goes detaches it first, after which
// open() says there is no model.
class ApiServer
{
public:
    ~ApiServer(); // close()
    ApiServer(const ApiServer &) = delete;
    ApiServer &operator=(const ApiServer &) = delete;

    // AddressInUse names the address when the port is taken; InvalidArgument names the option
    // that is wrong; NoModel when the session is gone. An open server is closed first.
    Error open(const ApiServerOptions &options);
    // Ends open streams and stops the HTTP threads. Idempotent.
    void close();
    bool isOpen() const;
    ApiServerOptions options() const;
    int port() const;             // 0 when closed
    std::string baseUrl() const;
    ApiStatus status() const;     // any thread

    // Checks without starting, at once (the window calls it on the GUI thread): a bad port, a
    // non-loopback host without a key, a key with white space or commas, an origin list entry
    // that is not an origin.
    static Error checkOptions(const ApiServerOptions &options);
    // A host to bind: an address of this machine or a name that resolves to one, not a Unix
    // socket path. A name is looked up (the resolver may take seconds): not on the GUI thread;
    // open() checks it.
    static Error checkHost(const std::string &host);
    // "a, b" -> {"a", "b"}: llama-server's --api-key takes a comma-separated list.
    static std::vector<std::string> splitKeys(const std::string &keys);
    static bool isLoopback(const std::string &host);
    // "http://127.0.0.1:8080" for a bound host and port (a wildcard host reads as loopback).
    static std::string urlFor(std::string host, int port);
    // Why llama.cpp's web UI is not built into this binary (`/` shows it); empty when it is.
    static std::string webUiMissing();
    // 32 random bytes from the OS as "sk-shoehorn-" + 64 hex digits.
    static std::string generateKey();
    // True if host:port can be bound right now.
    static bool portFree(const std::string &host, int port);
    // The first port after `port` (within 200) that portFree(); 0 if none. What to offer when the
    // chosen port is in use.
    static int freePortAfter(const std::string &host, int port);

private:
    friend struct internal::Access;
    struct Impl;
    ApiServer();
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
