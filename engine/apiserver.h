#pragma once

#include "error.h"
#include "settings.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

class Model;

// What llama-server's --host, --port, --api-key, --parallel, --metrics and -c mean here.
struct ApiServerOptions {
    std::string host = "127.0.0.1";
    int port = 8080;              // 0: any free port (tests)
    std::string apiKey;           // empty: no key; only allowed on a loopback host
    int parallel = 2;             // slots: requests decoded together
    uint32_t contextPerSlot = 4096; // tokens per slot; the KV cache holds parallel x this
    bool metrics = false;         // /metrics in Prometheus text format
    bool contextShift = false;    // shift instead of refusing a prompt longer than a slot
    std::string modelAlias;       // the name in /v1/models; empty: the file's name
    std::string mmproj;           // vision projector: image_url content parts work (the server
                                  // loads its own copy, as llama-server's --mmproj does)
    bool mmprojOffload = true;    // false: --no-mmproj-offload
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
    uint64_t requests = 0;        // requests that reached a route (not counting /health)
    std::vector<ApiSlot> slotStates; // (not "slots": a Qt keyword in app code)
    std::vector<std::string> lastErrors; // newest last, at most 10: "POST /v1/chat/completions: 400 …"
};

// llama.cpp's own server (routes, slots, batching, chat parsing, API keys, metrics) on a model
// that is already loaded: it creates a second context (the slots' KV cache) on the same
// weights and never reloads or frees them. Starting and stopping it leaves the model and every
// other context as they were. The server's threads (HTTP pool, task loop) are its own.
class ApiServer
{
public:
    // Binds, creates the slots' context, and serves. AddressInUse names the address when the
    // port is taken; InvalidArgument names the option that is wrong.
    static Result<std::unique_ptr<ApiServer>> start(std::shared_ptr<Model> model,
                                                    const ContextSettings &context,
                                                    const ApiServerOptions &options);
    ~ApiServer(); // stop()
    ApiServer(const ApiServer &) = delete;
    ApiServer &operator=(const ApiServer &) = delete;

    // Ends open streams, stops the loop and the HTTP threads, frees the slots' context. Idempotent.
    void stop();
    int port() const;
    std::string baseUrl() const;
    ApiStatus status() const; // any thread

    // Checks without starting: a bad port, parallel or context, a non-loopback host without a key.
    static Error checkOptions(const ApiServerOptions &options);
    static bool isLoopback(const std::string &host);
    // 32 random bytes from the OS as "sk-shoehorn-" + 64 hex digits.
    static std::string generateKey();
    // True if host:port can be bound right now.
    static bool portFree(const std::string &host, int port);
    // The first port after `port` (within 200) that portFree(); 0 if none. What to offer when the
    // chosen port is in use.
    static int freePortAfter(const std::string &host, int port);

private:
    struct Impl;
    explicit ApiServer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
