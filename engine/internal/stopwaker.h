#pragma once

// Engine-internal: wakes a reader of llama.cpp's server loop when the chat's Stop comes.
//
// llama.cpp's server_response_reader looks at its stop condition only when no result came for
// a whole polling interval (a second). Most of a turn sends results often enough (a token, a
// micro-batch's progress, the end of an aborted decode), but a silent step does not: a decode
// that never calls the abort callback (all layers on a GPU), a batch shared with an API request
// (not abortable), the turn's task queued behind another. Instead of a shorter interval (a
// change to llama.cpp's server), this watches the flag and, once it is set, sends the reader's
// task a result of its own through the server's public result queue: the reader wakes, sees
// Stop and cancels its task as it would after a timeout.

#include <server-queue.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace shoehorn::internal {

class StopWaker
{
public:
    // Watches `stop` every `interval` while this lives; no thread when there is nothing to watch.
    StopWaker(server_response &results, int taskId, std::function<bool()> stop,
              std::chrono::milliseconds interval = std::chrono::milliseconds(10));
    // Ends the watch. A wake the reader did not take (Stop came just after the answer ended)
    // leaves the queue with the task's other results.
    ~StopWaker();
    StopWaker(const StopWaker &) = delete;
    StopWaker &operator=(const StopWaker &) = delete;

    // Whether it woke the reader (tests).
    bool woke() const { return m_woke.load(); }

private:
    void watch(std::chrono::milliseconds interval);

    server_response &m_results;
    const int m_taskId;
    std::function<bool()> m_stop;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_done = false;
    std::atomic<bool> m_woke{false};
    std::thread m_thread;
};

} // namespace shoehorn::internal
