#include "apihost.h"

#include <utility>

using namespace shoehorn;

ApiHost::~ApiHost()
{
    if (auto s = server())
        s->close();
}

std::shared_ptr<ApiServer> ApiHost::server() const
{
    std::lock_guard lock(m_mutex);
    return m_server;
}

void ApiHost::setServer(std::shared_ptr<ApiServer> server)
{
    std::optional<ApiServerOptions> wanted;
    std::shared_ptr<ApiServer> old;
    {
        std::lock_guard lock(m_mutex);
        old = std::exchange(m_server, server);
        wanted = m_wanted;
    }
    if (old && old != server)
        old->close(); // its session goes next: its port is free at once
    old.reset();
    if (!server || !wanted)
        return;
    const Error e = server->open(*wanted);
    std::lock_guard lock(m_mutex);
    m_lastError = e;
    if (e)
        m_wanted.reset(); // off: the controller reports lastError(); a later model does not retry
}

void ApiHost::setApiSlots(int count)
{
    std::lock_guard lock(m_mutex);
    m_slots = std::max(1, count);
}

int ApiHost::apiSlots() const
{
    std::lock_guard lock(m_mutex);
    return m_slots;
}

Error ApiHost::start(const ApiServerOptions &options)
{
    if (Error e = ApiServer::checkOptions(options))
        return e;
    std::shared_ptr<ApiServer> s;
    {
        std::lock_guard lock(m_mutex);
        s = m_server;
        m_wanted = options; // a session published meanwhile opens with these
    }
    Error e = s ? s->open(options) : Error{ErrorCode::NoModel, "load a model first: the API serves the model the chat uses"};
    std::lock_guard lock(m_mutex);
    if (m_server != s && e.code == ErrorCode::NoModel)
        return {}; // a new model came meanwhile, and was opened with these options
    m_lastError = e;
    if (e)
        m_wanted.reset();
    return e;
}

void ApiHost::stop()
{
    std::shared_ptr<ApiServer> s;
    {
        std::lock_guard lock(m_mutex);
        s = m_server;
        m_wanted.reset();
    }
    if (s)
        s->close();
}

bool ApiHost::running() const
{
    const auto s = server();
    return s && s->isOpen();
}

std::optional<ApiServerOptions> ApiHost::wanted() const
{
    std::lock_guard lock(m_mutex);
    return m_wanted;
}

std::optional<ApiStatus> ApiHost::status() const
{
    const auto s = server();
    if (!s || !s->isOpen())
        return std::nullopt;
    return s->status();
}

Error ApiHost::lastError() const
{
    std::lock_guard lock(m_mutex);
    return m_lastError;
}
