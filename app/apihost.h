#pragma once

#include "apiserver.h"
#include "apiunavailable.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

// Where the loaded model's server loop meets the local API. The worker (the model's one owner)
// publishes the HTTP side of the session it loaded, and withdraws it before the session goes
// (which detaches it: nothing here holds the model). The API controller opens and closes it.
// Thread-safe: the worker thread, a pool thread (open, close and status take milliseconds; a
// start() during a loop restart waits for it) and the GUI thread call in. m_mutex is held only to
// read or swap the pointers, never across an open, a close or a status query; m_opening orders
// setServer()'s open and start()'s (the worker may wait for a user's open, seconds at most).
class ApiHost
{
public:
    ApiHost() = default;
    ~ApiHost();
    ApiHost(const ApiHost &) = delete;
    ApiHost &operator=(const ApiHost &) = delete;

    // Worker thread: the HTTP side of a new session (null: none). When the API is wanted it is
    // opened on it with the wanted options; a failure turns the API off (wanted() empty) and is
    // kept for lastError().
    void setServer(std::shared_ptr<shoehorn::ApiServer> server);

    // The API's slots beside the desktop chat's: part of the context, so a model loaded after
    // a change has them (the dialog's "parallel requests").
    void setApiSlots(int count);
    int apiSlots() const;

    // Worker thread: the published server goes for a moment and comes back with setServer()
    // (its session starts its loop again for a new projector). A start() meanwhile waits for it
    // (up to kReturnWait) and answers with its own open; a stop() holds: the API is opened on it
    // as wanted when it comes back.
    void withdraw();
    static constexpr std::chrono::seconds kReturnWait{30};

    // Auto-tune's turn (#30): the published server is withdrawn (its session goes next) and,
    // while the API is wanted, its address answers 503 with Retry-After and `why` until
    // setServer() publishes the next session's. Worker thread.
    void setUnavailable(const std::string &why, int retryAfterSeconds);

    // Opens (or reopens with new options) the published server; remembered as wanted. Not on
    // the GUI thread: while the server is withdrawn it waits for it to come back.
    shoehorn::Error start(const shoehorn::ApiServerOptions &options);
    void stop();
    bool running() const;
    // The wanted options while the API is on (also while no model is loaded), else nothing.
    std::optional<shoehorn::ApiServerOptions> wanted() const;
    std::optional<shoehorn::ApiStatus> status() const;
    shoehorn::Error lastError() const;
    // The published server (null: none, or withdrawn).
    std::shared_ptr<shoehorn::ApiServer> server() const;

private:

    std::mutex m_opening; // held across setServer()'s and start()'s opens, never under m_mutex
    mutable std::mutex m_mutex;
    std::condition_variable m_changed; // the server came back, or a stop()
    std::shared_ptr<shoehorn::ApiServer> m_server;
    std::unique_ptr<shoehorn::ApiUnavailableDoor> m_door; // while the model is being tuned
    std::string m_why;
    bool m_returning = false; // withdrawn, setServer() follows
    unsigned m_stops = 0;     // stop() calls: an open that raced one is closed again
    int m_retryAfter = 30;
    std::optional<shoehorn::ApiServerOptions> m_wanted;
    shoehorn::Error m_lastError;
    int m_slots = 2;
};
