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
    std::unique_ptr<ApiUnavailableDoor> door;
    unsigned stops = 0;
    std::lock_guard opening(m_opening); // a start() waiting for this server opens after this open
    {
        std::lock_guard lock(m_mutex);
        old = std::exchange(m_server, server);
        door = std::move(m_door);
        m_why.clear();
        m_returning = false;
        wanted = m_wanted;
        stops = m_stops;
    }
    m_changed.notify_all();
    door.reset(); // the 503 door of a tune gives its port back to the server
    if (old && old != server)
        old->close(); // its session goes next: its port is free at once
    old.reset();
    if (!server || !wanted)
        return;
    const Error e = server->open(*wanted);
    std::unique_lock lock(m_mutex);
    if (!e && (m_stops != stops || m_server != server)) {
        lock.unlock();
        server->close(); // stopped (or replaced) while it opened: Off holds
        return;
    }
    m_lastError = e;
    if (e)
        m_wanted.reset(); // off: the controller reports lastError(); a later model does not retry
}

void ApiHost::withdraw()
{
    std::shared_ptr<ApiServer> old;
    {
        std::lock_guard lock(m_mutex);
        old = std::exchange(m_server, nullptr);
        m_returning = true;
    }
    if (!old)
        return;
    // The same address when it comes back: "any free port" (0) becomes the port it has now.
    const int bound = old->port();
    old->close();
    std::lock_guard lock(m_mutex);
    if (m_wanted && m_wanted->port == 0 && bound > 0)
        m_wanted->port = bound;
}

void ApiHost::setUnavailable(const std::string &why, int retryAfterSeconds)
{
    // The same address throughout: "any free port" (0) becomes the port it has now.
    const auto s = server();
    const int bound = s ? s->port() : 0;
    setServer(nullptr);
    std::optional<ApiServerOptions> wanted;
    {
        std::lock_guard lock(m_mutex);
        m_why = why;
        m_retryAfter = retryAfterSeconds;
        if (m_wanted && m_wanted->port == 0 && bound > 0)
            m_wanted->port = bound;
        wanted = m_wanted;
    }
    if (!wanted)
        return;
    auto door = ApiUnavailableDoor::open(*wanted, why, retryAfterSeconds);
    std::unique_ptr<ApiUnavailableDoor> drop; // closed outside the lock (closing waits for clients)
    {
        std::lock_guard lock(m_mutex);
        if (!door)
            m_lastError = door.error(); // still wanted: the next session opens the API again
        else if (m_wanted && !m_server && !m_why.empty() && !m_door)
            m_door = std::move(*door);
        else
            drop = std::move(*door); // stopped, the session came back, or a start() opened one, meanwhile
    }
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
    std::unique_ptr<ApiUnavailableDoor> old;
    std::string why;
    int retryAfter = 0;
    unsigned stops = 0;
    {
        // A loop restarting for a new projector: the answer is the open's own (a port in use
        // gets its free-port offer), so wait for it here, on the caller's pool thread.
        std::unique_lock lock(m_mutex);
        stops = m_stops;
        if (!m_server && m_returning &&
            m_changed.wait_for(lock, kReturnWait, [&] { return !m_returning || m_stops != stops; }) &&
            m_stops != stops)
            return {}; // stopped meanwhile: Off holds
    }
    std::lock_guard opening(m_opening); // after setServer's own open, if it raced this
    {
        std::lock_guard lock(m_mutex);
        if (m_stops != stops)
            return {};
        s = m_server;
        m_wanted = options; // a session published meanwhile opens with these
        if (!s && m_returning)
            return {}; // still restarting: opened when it comes back, or said by lastError()
        if (!s && !m_why.empty()) {
            old = std::move(m_door);
            why = m_why;
            retryAfter = m_retryAfter;
        }
    }
    if (!why.empty()) {
        // Tuning: the door answers with the new options until the session comes back. Closed and
        // opened outside the lock (closing waits for connections, opening may look a name up).
        old.reset();
        auto door = ApiUnavailableDoor::open(options, why, retryAfter);
        std::unique_ptr<ApiUnavailableDoor> drop;
        {
            std::lock_guard lock(m_mutex);
            s = m_server;
            if (m_stops != stops) {
                if (door)
                    drop = std::move(*door); // stopped meanwhile: Off holds
                return {};
            }
            if (s || m_why.empty()) {
                // The tuned session came back meanwhile: it may have failed to open beside this
                // door. The door goes, and the session's server opens with these options below.
                if (door)
                    drop = std::move(*door);
            } else if (!door) {
                m_wanted.reset();
                return door.error();
            } else {
                drop = std::exchange(m_door, std::move(*door));
                return {};
            }
        }
    }
    Error e = s ? s->open(options) : Error{ErrorCode::NoModel, "load a model first: the API serves the model the chat uses"};
    std::unique_lock lock(m_mutex);
    if (m_stops != stops) {
        lock.unlock();
        if (s && !e)
            s->close(); // stopped while it opened: Off holds
        return {};
    }
    m_lastError = e;
    if (e)
        m_wanted.reset();
    else
        m_wanted = options; // also where the session's own open failed beside a door meanwhile
    return e;
}

void ApiHost::stop()
{
    std::shared_ptr<ApiServer> s;
    std::unique_ptr<ApiUnavailableDoor> door;
    {
        std::lock_guard lock(m_mutex);
        s = m_server;
        door = std::move(m_door);
        m_wanted.reset();
        ++m_stops;
    }
    m_changed.notify_all();
    door.reset();
    if (s)
        s->close();
}

bool ApiHost::running() const
{
    {
        std::lock_guard lock(m_mutex);
        if (m_door)
            return true; // on, answering 503 while the model is tuned
    }
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
    {
        std::lock_guard lock(m_mutex);
        if (m_door)
            return m_door->status();
    }
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
