#include "apihost.h"

#include "model.h"

using namespace shoehorn;

ApiHost::~ApiHost()
{
    stop();
}

ApiServerOptions ApiHost::withProjector(ApiServerOptions options) const
{
    options.mmproj = m_projector;
    options.mmprojOffload = m_projectorOffload;
    return options;
}

void ApiHost::setModel(std::shared_ptr<Model> model, const ContextSettings &context, const std::string &projector,
                       bool projectorOffload)
{
    std::shared_ptr<ApiServer> old;
    std::optional<ApiServerOptions> wanted;
    {
        std::lock_guard lock(m_mutex);
        old = std::move(m_server);
        m_model = std::move(model);
        m_context = context;
        m_projector = projector;
        m_projectorOffload = projectorOffload;
        wanted = m_wanted;
    }
    if (old)
        old->stop(); // outside the lock: status() may be waiting on this server
    old.reset();
    std::lock_guard lock(m_mutex);
    if (!m_model || !wanted)
        return;
    auto server = ApiServer::start(m_model, m_context, withProjector(*wanted));
    if (server) {
        m_server = std::move(*server);
        m_lastError = {};
    } else {
        m_lastError = server.error();
        m_wanted.reset(); // off: the controller reports lastError(); a later model does not retry
    }
}

Error ApiHost::start(const ApiServerOptions &options)
{
    if (Error e = ApiServer::checkOptions(options))
        return e;
    std::shared_ptr<ApiServer> old;
    {
        std::lock_guard lock(m_mutex);
        old = std::move(m_server);
    }
    if (old)
        old->stop();
    old.reset();
    std::lock_guard lock(m_mutex);
    if (!m_model) {
        m_wanted.reset();
        return Error{ErrorCode::NoModel, "load a model first: the API serves the model the chat uses"};
    }
    auto server = ApiServer::start(m_model, m_context, withProjector(options));
    if (!server) {
        m_wanted.reset();
        m_lastError = server.error();
        return server.error();
    }
    m_server = std::move(*server);
    m_wanted = options;
    m_lastError = {};
    return {};
}

void ApiHost::stop()
{
    std::shared_ptr<ApiServer> old;
    {
        std::lock_guard lock(m_mutex);
        old = std::move(m_server);
        m_wanted.reset();
    }
    if (old)
        old->stop();
}

bool ApiHost::running() const
{
    std::lock_guard lock(m_mutex);
    return m_server != nullptr;
}

std::optional<ApiServerOptions> ApiHost::wanted() const
{
    std::lock_guard lock(m_mutex);
    return m_wanted;
}

std::optional<ApiStatus> ApiHost::status() const
{
    std::shared_ptr<ApiServer> server;
    {
        std::lock_guard lock(m_mutex);
        server = m_server;
    }
    if (!server)
        return std::nullopt;
    return server->status();
}

Error ApiHost::lastError() const
{
    std::lock_guard lock(m_mutex);
    return m_lastError;
}
