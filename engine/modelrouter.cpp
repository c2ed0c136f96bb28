#include "modelrouter.h"

#include "apiroutes.h"
#include "guarded.h"
#include "httpside.h"
#include "httpstop.h"
#include "llamahandles.h"
#include "serverloop.h"

#include <server-common.h>
#include <server-context.h>
#include <server-http.h>

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <thread>

namespace shoehorn {

namespace {

// Said when a loaded model's memory is free again: its last copy went, and its loop, context
// and weights with it (which takes a while: the loop is joined, the weights freed).
struct Teardown {
    std::mutex mutex;
    std::condition_variable done;
    bool gone = false;
};

// The loaded model with the llama-server routes onto its loop. Requests hold a copy while they
// run (a stream until its last chunk): the model goes when the last copy does (makeLoaded).
struct Loaded {
    std::string name;
    std::unique_ptr<ChatSession> session;
    common_params params; // the routes refer to it
    std::unique_ptr<server_routes> routes;
    std::shared_ptr<Teardown> teardown = std::make_shared<Teardown>();
    ~Loaded() { routes.reset(); } // before the session's loop goes
};

std::shared_ptr<Loaded> makeLoaded()
{
    auto *entry = new Loaded;
    return std::shared_ptr<Loaded>(entry, [t = entry->teardown](Loaded *p) {
        const std::string name = p->name;
        delete p;
        if (!name.empty()) {
            std::printf("unloaded [%s]\n", name.c_str());
            std::fflush(stdout);
        }
        {
            std::lock_guard lock(t->mutex);
            t->gone = true;
        }
        t->done.notify_all();
    });
}

// A response that keeps its model loaded until httplib is done with it.
struct LeasedResponse : server_http_res {
    server_http_res_ptr inner;
    std::shared_ptr<Loaded> lease;
    // The response's reader talks to the model's loop when it goes: it goes first (the members'
    // own order would free the model under it when this lease is the last).
    ~LeasedResponse() override { inner.reset(); }
    void on_complete() override
    {
        if (inner)
            inner->on_complete();
    }
};

server_http_res_ptr leased(server_http_res_ptr inner, std::shared_ptr<Loaded> lease)
{
    if (!inner)
        return inner;
    auto out = std::make_unique<LeasedResponse>();
    out->content_type = inner->content_type;
    out->status = inner->status;
    out->data = std::move(inner->data);
    out->headers = inner->headers;
    if (inner->next) {
        server_http_res *raw = inner.get();
        out->next = [raw](std::string &chunk) { return raw->next(chunk); };
    }
    out->inner = std::move(inner);
    out->lease = std::move(lease);
    return out;
}

using Member = server_http_context::handler_t server_routes::*;

} // namespace

struct ModelRouter::Impl {
    ServerArgs router;
    std::vector<ServerPreset> presets;
    Loader loader;
    std::atomic<bool> closing{false}; // the loader's cancel
    common_params params; // the HTTP side's: outlives it
    std::unique_ptr<server_http_context> http;
    internal::RequestLog log;

    std::mutex switching; // one load or unload at a time
    mutable std::mutex mutex;
    std::shared_ptr<Loaded> current;
    // The teardown of a model taken away whose wait was given up (the request ended): the next
    // drain() waits for it still, so that no model loads while another is in memory.
    std::shared_ptr<Teardown> pending;

    const ServerPreset *find(const std::string &name) const
    {
        for (const auto &p : presets)
            if (p.name == name)
                return &p;
        return nullptr;
    }
    std::string loadedModelName() const
    {
        std::lock_guard lock(mutex);
        return current ? current->name : std::string();
    }
    std::string names() const
    {
        std::string out;
        for (const auto &p : presets)
            out += (out.empty() ? "" : ", ") + p.name;
        return out;
    }
    std::shared_ptr<Loaded> loaded() const
    {
        std::lock_guard lock(mutex);
        return current;
    }
    // Takes the loaded model away from new requests and waits until the open ones have ended
    // and its memory is free (the next model may need it), not just until the last copy went.
    bool drain(const std::function<bool()> &stop)
    {
        std::shared_ptr<Loaded> old;
        std::shared_ptr<Teardown> t;
        {
            std::lock_guard lock(mutex);
            old.swap(current);
            if (old)
                pending = old->teardown;
            t = pending;
        }
        if (!t)
            return true;
        old.reset(); // here, outside the lock, when no request holds it
        {
            std::unique_lock wait(t->mutex);
            while (!t->done.wait_for(wait, std::chrono::milliseconds(20), [&] { return t->gone; }))
                if (stop && stop())
                    return false;
        }
        std::lock_guard lock(mutex);
        if (pending == t)
            pending.reset();
        return true;
    }
    Result<std::shared_ptr<Loaded>> acquire(std::string name, const std::function<bool()> &stop);
    server_http_res_ptr forward(const server_http_req &req, const std::string &name, Member member);
    server_http_res_ptr listModels() const;
    void addRoutes();
};

Result<std::shared_ptr<Loaded>> ModelRouter::Impl::acquire(std::string name, const std::function<bool()> &stop)
{
    if (name.empty()) {
        if (auto now = loaded())
            return now;
        if (presets.size() != 1)
            return Error{ErrorCode::InvalidArgument,
                         "the request names no model (\"model\"); this server has " + names()};
        name = presets.front().name;
    }
    const ServerPreset *preset = find(name);
    if (!preset)
        return Error{ErrorCode::InvalidArgument, "no model \"" + name + "\" here; the models are " + names()};
    if (auto now = loaded(); now && now->name == name)
        return now;
    std::lock_guard switchLock(switching);
    if (auto now = loaded(); now && now->name == name)
        return now; // loaded by another request meanwhile
    if (!drain(stop))
        return Error{ErrorCode::Cancelled, "the request ended while the loaded model finished its requests"};
    if (closing)
        return Error{ErrorCode::Cancelled, "the server is stopping"};
    std::printf("loading [%s]\n", name.c_str());
    std::fflush(stdout);
    auto session = loader(*preset, closing);
    if (!session && closing) {
        std::printf("loading [%s] stopped: the server is stopping\n", name.c_str());
        std::fflush(stdout);
        return Error{ErrorCode::Cancelled, "the server is stopping"};
    }
    if (!session)
        return Error{session.error().code, "model \"" + name + "\" could not be loaded: " + errorMessage(session.error())};
    auto entry = makeLoaded();
    entry->name = name;
    entry->session = std::move(*session);
    internal::ServerLoop &loop = internal::Access::loop(*entry->session);
    entry->params = loop.params();
    entry->routes = std::make_unique<server_routes>(entry->params, loop.server());
    entry->routes->update_meta(loop.server()); // as ApiServer::open: new routes, a loop that never sleeps
    std::lock_guard lock(mutex);
    current = entry;
    return entry;
}

server_http_res_ptr ModelRouter::Impl::forward(const server_http_req &req, const std::string &name, Member member)
{
    auto entry = acquire(name, req.should_stop);
    if (!entry) {
        const Error &e = entry.error();
        return internal::errorResponse(e.detail, e.code == ErrorCode::InvalidArgument ? ERROR_TYPE_INVALID_REQUEST
                                                                                      : ERROR_TYPE_UNAVAILABLE);
    }
    server_routes &routes = *(*entry)->routes;
    return leased((routes.*member)(req), *entry);
}

server_http_res_ptr ModelRouter::Impl::listModels() const
{
    const auto now = loaded();
    json data = json::array();
    const std::time_t t = std::time(nullptr);
    for (const auto &p : presets) {
        const bool on = now && now->name == p.name;
        data.push_back({{"id", p.name},
                        {"object", "model"},
                        {"owned_by", "llamacpp"},
                        {"created", t},
                        {"status", {{"value", on ? "loaded" : "unloaded"}}},
                        {"path", p.args.modelPath()}});
    }
    auto res = std::make_unique<server_http_res>();
    res->data = safe_json_to_str({{"object", "list"}, {"data", data}});
    return res;
}

void ModelRouter::Impl::addRoutes()
{
    const auto post = [this](const std::string &path, Member m) {
        http->post(path, internal::wrapHandler(log, *http, "POST", path, [this, m](const server_http_req &req) {
                       const json body = json::parse(req.body); // bad JSON: 400 by the wrapper
                       return forward(req, json_value(body, "model", std::string()), m);
                   }));
    };
    const auto get = [this](const std::string &path, Member m) {
        http->get(path, internal::wrapHandler(log, *http, "GET", path, [this, m](const server_http_req &req) {
                      return forward(req, req.get_param("model"), m);
                  }));
    };
    const auto health = [](const server_http_req &) {
        auto res = std::make_unique<server_http_res>();
        res->data = safe_json_to_str({{"status", "ok"}});
        return res;
    };
    http->get("/health", health); // public, not counted
    http->get("/v1/health", health);
    internal::addIndexRoutes(*http, router.webUi());
    for (const char *path : {"/models", "/v1/models"})
        http->get(path, internal::wrapHandler(log, *http, "GET", path, [this](const server_http_req &) { return listModels(); }));
    http->post("/models/load", internal::wrapHandler(log, *http, "POST", "/models/load", [this](const server_http_req &req) {
        const std::string name = json_value(json::parse(req.body), "model", std::string());
        if (name.empty())
            return internal::errorResponse("name the model: {\"model\": NAME}", ERROR_TYPE_INVALID_REQUEST);
        auto entry = acquire(name, req.should_stop);
        if (!entry)
            return internal::errorResponse(entry.error().detail, entry.error().code == ErrorCode::Cancelled
                                                                     ? ERROR_TYPE_UNAVAILABLE
                                                                     : ERROR_TYPE_INVALID_REQUEST);
        auto res = std::make_unique<server_http_res>();
        res->data = safe_json_to_str({{"success", true}});
        return res;
    }));
    http->post("/models/unload", internal::wrapHandler(log, *http, "POST", "/models/unload", [this](const server_http_req &req) {
        const std::string name = json_value(json::parse(req.body), "model", std::string());
        std::lock_guard switchLock(switching);
        if (loadedModelName() != name) // no lease of our own: drain() waits for every one
            return internal::errorResponse("model \"" + name + "\" is not loaded", ERROR_TYPE_INVALID_REQUEST);
        if (!drain(req.should_stop))
            return internal::errorResponse("the request ended while the model finished its requests", ERROR_TYPE_UNAVAILABLE);
        auto res = std::make_unique<server_http_res>();
        res->data = safe_json_to_str({{"success", true}});
        return res;
    }));
    // llama-server's routes, forwarded to the loaded model's (its own /models above). The
    // resumable-stream routes and slot actions are a loop's own: not through the router.
    for (const internal::RouteSpec &r : internal::apiRouteTable()) {
        if (!r.member) {
            if (!r.make)
                internal::addRoute(*http, r, [](const server_http_req &) { return internal::featureDisabled(); });
            continue;
        }
        if (r.member == &server_routes::get_models || r.member == &server_routes::post_slots)
            continue;
        if (r.method == internal::RouteSpec::Post)
            post(r.path, r.member);
        else
            get(r.path, r.member);
    }
}

ModelRouter::ModelRouter() : m_impl(std::make_unique<Impl>()) {}

ModelRouter::~ModelRouter()
{
    close();
}

Result<std::unique_ptr<ModelRouter>> ModelRouter::open(const ServerArgs &router, std::vector<ServerPreset> presets,
                                                       Loader load)
{
    return internal::guarded(ErrorCode::ServeFailed, [&]() -> Result<std::unique_ptr<ModelRouter>> {
        const ApiServerOptions options = router.http();
        if (Error e = ApiServer::checkOptions(options))
            return e;
        if (Error e = ApiServer::checkHost(options.host))
            return e;
        if (presets.empty())
            return Error{ErrorCode::InvalidArgument, "no models to serve"};
        auto r = std::unique_ptr<ModelRouter>(new ModelRouter());
        Impl &d = *r->m_impl;
        d.router = router;
        d.presets = std::move(presets);
        d.loader = std::move(load);
        d.params = internal::Access::params(router);
        d.http = std::make_unique<server_http_context>();
        internal::configureDoor(d.params, *d.http, options, d.log);
        if (!d.http->init(d.params)) {
            d.http.reset();
            return Error{ErrorCode::ServeFailed, "llama.cpp's HTTP server could not be set up"};
        }
        d.addRoutes();
        if (!d.http->start()) {
            d.http.reset();
            return Error{ErrorCode::AddressInUse,
                         options.host + ":" + std::to_string(options.port) + " cannot be bound (in use by another program?)"};
        }
        d.http->is_ready.store(true);
        return r;
    });
}

void ModelRouter::close()
{
    Impl &d = *m_impl;
    d.closing = true; // a load under way ends at llama's next progress call, not when it is done
    if (d.http) {
        internal::stopHttp(*d.http);
        d.http.reset();
    }
    std::shared_ptr<Loaded> last;
    std::lock_guard lock(d.mutex);
    last.swap(d.current); // freed after the lock (declared before it)
}

std::string ModelRouter::baseUrl() const
{
    if (!m_impl->http)
        return {};
    std::string host = m_impl->params.hostname;
    if (host == "0.0.0.0" || host == "::")
        host = "127.0.0.1";
    if (host.find(':') != std::string::npos && host.front() != '[')
        host = "[" + host + "]";
    return "http://" + host + ":" + std::to_string(m_impl->http->port);
}

ApiStatus ModelRouter::status() const
{
    ApiStatus s;
    s.baseUrl = baseUrl();
    m_impl->log.fill(s);
    return s;
}

std::string ModelRouter::loadedModel() const
{
    return m_impl->loadedModelName();
}

Error ModelRouter::load(const std::string &name)
{
    auto entry = m_impl->acquire(name, {});
    return entry ? Error{} : entry.error();
}

void ModelRouter::unload()
{
    std::lock_guard switchLock(m_impl->switching);
    m_impl->drain({});
}

} // namespace shoehorn
