#include "stopwaker.h"

#include <server-task.h>

namespace shoehorn::internal {

StopWaker::StopWaker(server_response &results, int taskId, std::function<bool()> stop,
                     std::chrono::milliseconds interval)
    : m_results(results), m_taskId(taskId), m_stop(std::move(stop))
{
    if (m_stop)
        m_thread = std::thread([this, interval] { watch(interval); });
}

StopWaker::~StopWaker()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_done = true;
    }
    m_wake.notify_all();
    m_thread.join();
    if (m_woke.load())
        m_results.remove_waiting_task_id(m_taskId); // also drops its results still queued
}

void StopWaker::watch(std::chrono::milliseconds interval)
{
    std::unique_lock lock(m_mutex);
    while (!m_wake.wait_for(lock, interval, [this] { return m_done; })) {
        if (!m_stop())
            continue;
        auto wake = std::make_unique<server_task_result_error>();
        wake->id = m_taskId;
        wake->err_type = ERROR_TYPE_SERVER;
        wake->err_msg = "stopped";
        m_woke.store(true); // before the send: the reader may look as soon as it has the result
        m_results.send(std::move(wake));
        return;
    }
}

} // namespace shoehorn::internal
