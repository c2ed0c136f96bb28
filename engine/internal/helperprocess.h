#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn::internal {

// A helper process (shoehorn-cli) that reads an untrusted file where a crash, a hang or runaway
// memory ends only the helper: fork + exec with its own limits, pipes for stdin, stdout and
// stderr. Killed and reaped when destroyed.
class HelperProcess
{
public:
    struct Limits {
        uint64_t heapBytes = 0; // RLIMIT_DATA (mapped file pages do not count); 0: none
        int cpuSeconds = 0;     // RLIMIT_CPU soft limit (SIGXCPU); 0: none
    };

    HelperProcess() = default;
    ~HelperProcess();
    HelperProcess(HelperProcess &&other) noexcept;
    HelperProcess &operator=(HelperProcess &&other) noexcept;
    HelperProcess(const HelperProcess &) = delete;
    HelperProcess &operator=(const HelperProcess &) = delete;

    // False (errno set) when the pipes or the fork failed. `withStdin`: a pipe to the helper's
    // standard input (otherwise it reads /dev/null-like EOF from a closed pipe).
    bool start(const std::vector<std::string> &argv, const Limits &limits, bool withStdin);
    bool running() const { return m_pid > 0; }
    int pid() const { return m_pid; }
    int stdinFd() const { return m_in; }
    int stdoutFd() const { return m_out; }
    int stderrFd() const { return m_err; }
    void closeStdin();
    // SIGKILL, then reap. Returns the wait status (0 if none was running).
    int kill();
    // Waits for the exit and returns the wait status.
    int wait();

    // Reads what is ready on stdout and stderr (stderr kept to its first 16 KiB and its last 48 KiB) for at most
    // `timeout`. False when both are closed.
    bool pump(std::string &out, std::string &err, std::chrono::milliseconds timeout);

private:
    void closeAll();
    int m_pid = -1;
    int m_in = -1;
    int m_out = -1;
    int m_err = -1;
};

// The helper's heap (VmData, what RLIMIT_DATA limits), from /proc; 0 if unknown, and in a
// sanitized build (no heap limit there, and ASan's shadow memory counts as data).
uint64_t processHeapBytes(int pid);

// The signal that ended a helper (wait status `status`, its stderr `err`), else 0. In a sanitized
// build ASan catches SIGSEGV, SIGBUS and SIGFPE, reports and exits: its report names the signal.
int deadlySignal(int status, const std::string &err);

} // namespace shoehorn::internal
