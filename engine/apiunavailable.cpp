#include "apiunavailable.h"

#include "apiroutes.h"
#include "guarded.h"
#include "httpside.h"
#include "httpstop.h"

#include <common.h>
#include <server-common.h>
#include <server-http.h>

namespace shoehorn {

struct ApiUnavailableDoor::Impl {
    common_params params;
    internal::RequestLog log;
    std::unique_ptr<server_http_context> http;
    std::string why;
    std::string host;
    int retryAfter = 30;

    server_http_res_ptr busy() const
    {
        server_http_res_ptr res = internal::errorResponse(why, ERROR_TYPE_UNAVAILABLE);
        res->headers["Retry-After"] = std::to_string(retryAfter);
        return res;
    }
};

ApiUnavailableDoor::ApiUnavailableDoor() : m_impl(std::make_unique<Impl>()) {}

ApiUnavailableDoor::~ApiUnavailableDoor()
{
    Impl &d = *m_impl;
    if (!d.http)
        return;
    internal::stopHttp(*d.http);
}

Result<std::unique_ptr<ApiUnavailableDoor>> ApiUnavailableDoor::open(const ApiServerOptions &options,
                                                                     const std::string &why, int retryAfterSeconds)
{
    return internal::guarded(ErrorCode::ServeFailed, [&]() -> Result<std::unique_ptr<ApiUnavailableDoor>> {
        if (Error e = ApiServer::checkOptions(options))
            return e;
        if (Error e = ApiServer::checkHost(options.host))
            return e;
        auto door = std::unique_ptr<ApiUnavailableDoor>(new ApiUnavailableDoor());
        Impl &d = *door->m_impl;
        d.why = why;
        d.host = options.host;
        d.retryAfter = std::max(1, retryAfterSeconds);
        d.http = std::make_unique<server_http_context>();
        internal::configureDoor(d.params, *d.http, options, d.log);
        if (!d.http->init(d.params)) {
            d.http.reset();
            return Error{ErrorCode::ServeFailed, "llama.cpp's HTTP server could not be set up"};
        }
        const Impl *self = &d;
        const auto busy = [self](const server_http_req &) { return self->busy(); };
        // /health is public, as llama-server's is while it loads: 503 and the reason, uncounted.
        d.http->get("/health", busy);
        d.http->get("/v1/health", busy);
        internal::addIndexRoutes(*d.http, d.params.ui);
        for (const internal::RouteSpec &r : internal::apiRouteTable())
            internal::addRoute(*d.http, r, internal::wrapHandler(d.log, *d.http, r.methodName(), r.path, busy));
        if (!d.http->start()) {
            // Not stopHttp(): it would cut the clients of whoever holds this port (in the app:
            // the API server that opened there first).
            d.http.reset();
            return Error{ErrorCode::AddressInUse, options.host + ":" + std::to_string(options.port) +
                                                      " cannot be bound (in use by another program?)"};
        }
        d.http->is_ready.store(true);
        return door;
    });
}

int ApiUnavailableDoor::port() const
{
    return m_impl->http ? m_impl->http->port : 0;
}

ApiStatus ApiUnavailableDoor::status() const
{
    ApiStatus s;
    m_impl->log.fill(s);
    s.unavailable = m_impl->why;
    s.baseUrl = ApiServer::urlFor(m_impl->host, port());
    return s;
}

} // namespace shoehorn
