#include "apiserver.h"

#include "guarded.h"
#include "apiroutes.h"
#include "httpside.h"
#include "httpstop.h"

#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "model.h"
#include "serverloop.h"

#include <server-common.h>
#include <server-context.h>
#include <server-http.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

namespace shoehorn {

struct ApiServer::Impl {
    // Held by open(), close(), status() and the session's attach/detach: a status poll or a
    // start on a pool thread never outlives the loop it uses. Never across a context creation.
    mutable std::mutex lifecycle;
    internal::ServerLoop *loop = nullptr;
    ApiServerOptions options;
    common_params params; // the loop's, with the HTTP options: outlives the routes and the HTTP side
    std::unique_ptr<server_http_context> http;
    std::unique_ptr<server_routes> routes;

    internal::RequestLog log;
    mutable std::mutex mutex; // rates
    struct Rate {
        int decoded = 0;
        std::chrono::steady_clock::time_point at;
        double tps = 0;
    };
    mutable std::map<int, Rate> rates;
    // The desktop chat's slot, which the API neither shows nor counts (-1: serve has none).
    int desktopSlot = -1;

    void closeLocked();


    void addRoutes()
    {
        http->get("/health", routes->get_health); // public (no key), not counted
        http->get("/v1/health", routes->get_health);
        internal::addIndexRoutes(*http, params.ui);
        for (const internal::RouteSpec &r : internal::apiRouteTable())
            internal::addRoute(*http, r,
                               internal::wrapHandler(log, *http, r.methodName(), r.path,
                                                     internal::routeHandler(r, *routes, desktopSlot)));
        http->register_gcp_compat(); // llama-server's Vertex AI routes, when its AIP_* variables ask
    }
};

ApiServer::ApiServer() : m_impl(std::make_unique<Impl>()) {}

ApiServer::~ApiServer()
{
    close();
}

Error ApiServer::checkOptions(const ApiServerOptions &o)
{
    if (o.host.empty())
        return Error{ErrorCode::InvalidArgument, "--host: empty"};
    if (o.port < 0 || o.port > 65535)
        return Error{ErrorCode::InvalidArgument, "--port " + std::to_string(o.port) + ": must be 1-65535"};
    if (!isLoopback(o.host) && o.apiKeys.empty())
        return Error{ErrorCode::InvalidArgument,
                     "--host " + o.host + " is reachable from other machines: set an API key first"};
    for (const std::string &key : o.apiKeys) {
        if (key.empty())
            return Error{ErrorCode::InvalidArgument, "an API key is empty"};
        if (key.find_first_of(" \t\r\n,") != std::string::npos)
            return Error{ErrorCode::InvalidArgument, "an API key contains white space or a comma"};
    }
    for (const std::string &origin : splitKeys(o.corsOrigins)) {
        if (origin == "*" || origin == "localhost" || origin == "null")
            continue;
        const auto scheme = origin.find("://");
        if (scheme == std::string::npos || scheme == 0 || origin.size() == scheme + 3 ||
            origin.find('/', scheme + 3) != std::string::npos)
            return Error{ErrorCode::InvalidArgument,
                         "--cors-origins: \"" + origin +
                             "\" is not an origin (scheme://host[:port], as a browser sends it, or localhost or *)"};
    }
    return {};
}

std::vector<std::string> ApiServer::splitKeys(const std::string &keys)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= keys.size()) {
        size_t comma = keys.find(',', start);
        if (comma == std::string::npos)
            comma = keys.size();
        std::string item = keys.substr(start, comma - start);
        const auto b = item.find_first_not_of(" \t");
        if (b != std::string::npos)
            out.push_back(item.substr(b, item.find_last_not_of(" \t") - b + 1));
        start = comma + 1;
    }
    return out;
}

std::string ApiServer::webUiMissing()
{
    return internal::webUiBuiltIn() ? std::string() : internal::webUiMissingReason();
}

bool ApiServer::isLoopback(const std::string &host)
{
    if (host == "localhost" || host == "::1" || host == "[::1]")
        return true;
    in_addr a{};
    if (inet_pton(AF_INET, host.c_str(), &a) == 1)
        return (ntohl(a.s_addr) >> 24) == 127;
    return false;
}

std::string ApiServer::generateKey()
{
    unsigned char bytes[32] = {};
    std::ifstream random("/dev/urandom", std::ios::binary);
    random.read(reinterpret_cast<char *>(bytes), sizeof bytes);
    if (random.gcount() != sizeof bytes)
        return {}; // no entropy source: the caller reports it rather than using a weak key
    std::string key = "sk-shoehorn-";
    char hex[3];
    for (unsigned char b : bytes) {
        std::snprintf(hex, sizeof hex, "%02x", b);
        key += hex;
    }
    return key;
}

namespace {

struct Resolved {
    addrinfo *list = nullptr;
    int status = 0; // getaddrinfo's
    explicit Resolved(const std::string &host)
    {
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE;
        status = getaddrinfo(host.c_str(), "0", &hints, &list);
    }
    ~Resolved()
    {
        if (list)
            freeaddrinfo(list);
    }
    Resolved(const Resolved &) = delete;
    Resolved &operator=(const Resolved &) = delete;
};

// Whether one of the addresses binds on `port` (as cpp-httplib binds); errno of the last failure.
bool bindsOn(const addrinfo *list, int port, int &error)
{
    error = 0;
    for (const addrinfo *a = list; a; a = a->ai_next) {
        sockaddr_storage addr{};
        std::memcpy(&addr, a->ai_addr, std::min<size_t>(a->ai_addrlen, sizeof addr));
        if (addr.ss_family == AF_INET)
            reinterpret_cast<sockaddr_in &>(addr).sin_port = htons(uint16_t(port));
        else if (addr.ss_family == AF_INET6)
            reinterpret_cast<sockaddr_in6 &>(addr).sin6_port = htons(uint16_t(port));
        else
            continue;
        const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) {
            error = errno;
            continue;
        }
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        const bool ok = ::bind(fd, reinterpret_cast<const sockaddr *>(&addr), a->ai_addrlen) == 0;
        error = ok ? 0 : errno;
        ::close(fd);
        if (ok)
            return true;
    }
    return false;
}

} // namespace

Error ApiServer::checkHost(const std::string &host)
{
    if (host.size() > 5 && host.compare(host.size() - 5, 5, ".sock") == 0)
        return Error{ErrorCode::InvalidArgument, "--host " + host +
                                                     ": Unix sockets are not served by Shoehorn; give an address "
                                                     "(127.0.0.1) and a --port"};
    const Resolved r(host);
    if (r.status != 0 || !r.list)
        return Error{ErrorCode::InvalidArgument, "--host " + host + ": not an address, nor a name this machine resolves (" +
                                                     gai_strerror(r.status) + ")"};
    int error = 0;
    if (!bindsOn(r.list, 0, error) && error == EADDRNOTAVAIL)
        return Error{ErrorCode::InvalidArgument, "--host " + host + ": not an address of this machine (" +
                                                     std::strerror(error) + "); 127.0.0.1 is this machine only, "
                                                     "0.0.0.0 every network"};
    return {};
}

bool ApiServer::portFree(const std::string &host, int port)
{
    const Resolved r(host);
    int error = 0;
    return r.status == 0 && bindsOn(r.list, port, error);
}

int ApiServer::freePortAfter(const std::string &host, int port)
{
    const Resolved r(host); // once: a name is not looked up again for every port
    int error = 0;
    for (int p = port + 1; r.status == 0 && p <= std::min(65535, port + 200); ++p)
        if (bindsOn(r.list, p, error))
            return p;
    return 0;
}

Error ApiServer::open(const ApiServerOptions &options)
{
    return internal::guarded(ErrorCode::ServeFailed, [&]() -> Error {
        if (Error e = checkHost(options.host)) // an address this machine lacks first, as serve says it
            return e;
        if (Error e = checkOptions(options))
            return e;
        std::lock_guard life(m_impl->lifecycle);
        Impl &d = *m_impl;
        if (!d.loop)
            return Error{ErrorCode::NoModel, "no model is loaded"};
        d.closeLocked();
        d.params = d.loop->params();
        d.desktopSlot = d.loop->settings().slots.desktop ? internal::ServerLoop::kDesktopSlot : -1;
        d.http = std::make_unique<server_http_context>();
        internal::configureDoor(d.params, *d.http, options, d.log);
        if (!d.http->init(d.params)) {
            d.http.reset();
            return Error{ErrorCode::ServeFailed, "llama.cpp's HTTP server could not be set up"};
        }
        d.routes = std::make_unique<server_routes>(d.params, d.loop->server());
        // llama.cpp's get_meta() reads only what load_model set, and Shoehorn's loop never sleeps
        // (which would load again): safe while the loop runs. is_ready is still false here.
        d.routes->update_meta(d.loop->server());
        d.addRoutes();
        if (!d.http->start()) {
            d.routes.reset();
            d.http.reset();
            return Error{ErrorCode::AddressInUse, options.host + ":" + std::to_string(options.port) +
                                                      " cannot be bound (in use by another program?)"};
        }
        d.options = options;
        d.http->is_ready.store(true); // the loop runs already: requests are served at once
        return {};
    });
}

// Stop accepting, and end every open request (cmake/LlamaServer.cmake: should_stop sees the
// flag within the reader's polling): streams end, waiting requests get no answer and their
// readers cancel their tasks; a client that is still connected after that is cut off
// (internal/httpstop.h). The loop and its slots stay.
void ApiServer::Impl::closeLocked()
{
    if (!http)
        return;
    internal::stopHttp(*http);
    routes.reset();
    http.reset();
}

void ApiServer::close()
{
    std::lock_guard life(m_impl->lifecycle);
    m_impl->closeLocked();
}

bool ApiServer::isOpen() const
{
    std::lock_guard life(m_impl->lifecycle);
    return m_impl->http != nullptr;
}

ApiServerOptions ApiServer::options() const
{
    std::lock_guard life(m_impl->lifecycle);
    return m_impl->options;
}

std::shared_ptr<ApiServer> internal::Access::makeApiServer(ServerLoop &loop)
{
    auto api = std::shared_ptr<ApiServer>(new ApiServer());
    api->m_impl->loop = &loop;
    return api;
}

void internal::Access::attachApiServer(ApiServer &api, ServerLoop &loop)
{
    std::lock_guard life(api.m_impl->lifecycle);
    api.m_impl->loop = &loop;
}

void internal::Access::detachApiServer(ApiServer &api)
{
    std::lock_guard life(api.m_impl->lifecycle);
    api.m_impl->closeLocked();
    api.m_impl->loop = nullptr;
}

int ApiServer::port() const
{
    std::lock_guard life(m_impl->lifecycle);
    return m_impl->http ? m_impl->http->port : 0;
}

std::string ApiServer::baseUrl() const
{
    const int p = port();
    std::lock_guard life(m_impl->lifecycle);
    return urlFor(m_impl->options.host, p);
}

std::string ApiServer::urlFor(std::string host, int port)
{
    if (host == "0.0.0.0" || host == "::")
        host = "127.0.0.1";
    if (host.find(':') != std::string::npos && host.front() != '[')
        host = "[" + host + "]";
    return "http://" + host + ":" + std::to_string(port);
}

ApiStatus ApiServer::status() const
{
    ApiStatus s;
    s.baseUrl = isOpen() ? baseUrl() : std::string();
    m_impl->log.fill(s);
    std::lock_guard life(m_impl->lifecycle);
    if (!m_impl->http)
        return s;
    // llama-server's own /slots answer, asked in-process (it goes through the task queue).
    const std::function<bool()> never = [] { return false; };
    server_http_req req{{}, {}, "/slots", "", "", {}, never};
    json slots;
    try {
        auto res = m_impl->routes->get_slots(req);
        if (res && res->status == 200)
            slots = json::parse(res->data);
    } catch (...) {
        return s;
    }
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_impl->mutex);
    for (const auto &j : slots) {
        ApiSlot slot;
        slot.id = j.value("id", 0);
        if (slot.id == m_impl->desktopSlot)
            continue; // the desktop chat's: not the API's to show
        slot.busy = j.value("is_processing", false);
        slot.contextTokens = j.value("n_ctx", 0);
        slot.promptTokens = j.value("n_prompt_tokens", 0);
        if (j.contains("next_token") && !j["next_token"].empty())
            slot.generatedTokens = j["next_token"][0].value("n_decoded", 0);
        auto &rate = m_impl->rates[slot.id];
        const double dt = std::chrono::duration<double>(now - rate.at).count();
        if (rate.at.time_since_epoch().count() != 0 && dt > 0.05) {
            const int delta = slot.generatedTokens - rate.decoded;
            rate.tps = (slot.busy && delta > 0) ? delta / dt : 0.0;
        }
        if (dt > 0.05 || rate.at.time_since_epoch().count() == 0) {
            rate.decoded = slot.generatedTokens;
            rate.at = now;
        }
        slot.tokensPerSecond = slot.busy ? rate.tps : 0.0;
        s.slotStates.push_back(slot);
    }
    return s;
}

} // namespace shoehorn
