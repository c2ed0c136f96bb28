#include "helperprocess.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utility>

namespace shoehorn::internal {

namespace {

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

// stderr kept: its start (what the helper was doing: "check: template") and its end (why it
// stopped), so that a crash report as long as ASan's of a deep recursion keeps both.
constexpr size_t kMaxErr = 64 * 1024;
constexpr size_t kErrHead = 16 * 1024;

// What the child does between vfork and exec, prepared by the parent.
// AddressSanitizer maps terabytes of shadow memory at start, which RLIMIT_DATA counts: a helper
// of a sanitized build (SHOEHORN_SANITIZE) could not start under a heap limit. It runs without
// one there; the CPU and wall-clock limits stay.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

struct ChildSetup {
    char *const *argv;
    int in, out, err; // in < 0: no stdin
    rlimit data, cpu, core;
    bool limitData, limitCpu;
    const sigset_t *mask; // the parent's signal mask, restored just before exec
};

// Runs in the vfork child, on the parent's memory: only system calls, nothing that allocates or
// touches a lock. Handlers the parent installed are reset first (they would run on the parent's
// memory), then the parent's mask comes back and the program replaces this one.
[[noreturn]] void execChild(const ChildSetup &c)
{
    for (int sig = 1; sig < NSIG; ++sig) {
        struct sigaction sa {};
        if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) {
            sa = {};
            sa.sa_handler = SIG_DFL;
            ::sigaction(sig, &sa, nullptr);
        }
    }
    if (c.in >= 0)
        ::dup2(c.in, 0);
    else
        ::close(0);
    ::dup2(c.out, 1);
    ::dup2(c.err, 2);
    if (c.limitData)
        ::setrlimit(RLIMIT_DATA, &c.data);
    if (c.limitCpu)
        ::setrlimit(RLIMIT_CPU, &c.cpu);
    ::setrlimit(RLIMIT_CORE, &c.core); // a crash there is expected: no core file
    ::pthread_sigmask(SIG_SETMASK, c.mask, nullptr);
    ::execv(c.argv[0], c.argv);
    ::_exit(127);
}

} // namespace

HelperProcess::~HelperProcess()
{
    kill();
}

HelperProcess::HelperProcess(HelperProcess &&other) noexcept
{
    *this = std::move(other);
}

HelperProcess &HelperProcess::operator=(HelperProcess &&other) noexcept
{
    if (this != &other) {
        kill();
        std::swap(m_pid, other.m_pid);
        std::swap(m_in, other.m_in);
        std::swap(m_out, other.m_out);
        std::swap(m_err, other.m_err);
    }
    return *this;
}

bool HelperProcess::start(const std::vector<std::string> &args, const Limits &limits, bool withStdin)
{
    kill();
    int inPipe[2] = {-1, -1}, outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
    const auto closePipes = [&] {
        for (int *p : {inPipe, outPipe, errPipe}) {
            closeFd(p[0]);
            closeFd(p[1]);
        }
    };
    if ((withStdin && ::pipe2(inPipe, O_CLOEXEC) != 0) || ::pipe2(outPipe, O_CLOEXEC) != 0 ||
        ::pipe2(errPipe, O_CLOEXEC) != 0) {
        const int saved = errno;
        closePipes();
        errno = saved;
        return false;
    }
    // Everything the child needs is prepared before vfork: the child shares this memory and
    // only makes system calls until exec. vfork, not fork: fork copies the page tables of this
    // process (the app: hundreds of MiB mapped) while holding its memory map's lock, and every
    // other thread that faults a page in waits meanwhile (the GUI thread stalled 20-50 ms when a
    // model was opened with the safety check).
    std::vector<std::string> copy = args;
    std::vector<char *> argv;
    for (std::string &a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    sigset_t all, old;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &old); // no handler runs in the child before exec
    const ChildSetup setup{argv.data(),
                           withStdin ? inPipe[0] : -1,
                           outPipe[1],
                           errPipe[1],
                           rlimit{limits.heapBytes, limits.heapBytes},
                           rlimit{rlim_t(limits.cpuSeconds), rlim_t(limits.cpuSeconds + 1)},
                           rlimit{0, 0},
                           limits.heapBytes > 0 && !kSanitized,
                           limits.cpuSeconds > 0,
                           &old};
    const pid_t pid = ::vfork();
    if (pid == 0)
        execChild(setup);
    const int saved = errno;
    ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
    closeFd(inPipe[0]);
    closeFd(outPipe[1]);
    closeFd(errPipe[1]);
    if (pid < 0) {
        closePipes();
        errno = saved;
        return false;
    }
    m_pid = pid;
    m_in = inPipe[1];
    m_out = outPipe[0];
    m_err = errPipe[0];
    return true;
}

void HelperProcess::closeStdin()
{
    closeFd(m_in);
}

void HelperProcess::closeAll()
{
    closeFd(m_in);
    closeFd(m_out);
    closeFd(m_err);
}

int HelperProcess::kill()
{
    if (m_pid <= 0) {
        closeAll();
        return 0;
    }
    ::kill(m_pid, SIGKILL);
    return wait();
}

int HelperProcess::wait()
{
    int status = 0;
    if (m_pid > 0)
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
    m_pid = -1;
    closeAll();
    return status;
}

bool HelperProcess::pump(std::string &out, std::string &err, std::chrono::milliseconds timeout)
{
    if (m_out < 0 && m_err < 0)
        return false;
    pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
    if (::poll(fds, 2, int(timeout.count())) < 0)
        return errno == EINTR;
    char buf[16384];
    for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int &fd = i == 0 ? m_out : m_err;
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) {
            closeFd(fd);
            continue;
        }
        std::string &to = i == 0 ? out : err;
        to.append(buf, size_t(n));
        if (i == 1 && to.size() > kMaxErr)
            to.erase(kErrHead, to.size() - kMaxErr);
    }
    return m_out >= 0 || m_err >= 0;
}

uint64_t processHeapBytes(int pid)
{
    if (kSanitized)
        return 0;
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmData:", 0) == 0)
            return std::stoull(line.substr(7)) * 1024; // "VmData:   524288 kB"
    return 0;
}

int deadlySignal(int status, const std::string &err)
{
    if (WIFSIGNALED(status))
        return WTERMSIG(status);
    if (!kSanitized || !WIFEXITED(status) || WEXITSTATUS(status) == 0)
        return 0;
    for (const auto &[report, sig] : {std::pair{"AddressSanitizer: stack-overflow", SIGSEGV},
                                      std::pair{"AddressSanitizer: SEGV", SIGSEGV}, std::pair{"AddressSanitizer: BUS", SIGBUS},
                                      std::pair{"AddressSanitizer: FPE", SIGFPE}})
        if (err.find(report) != std::string::npos)
            return sig;
    return 0;
}

} // namespace shoehorn::internal
