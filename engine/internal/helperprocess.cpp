#include "helperprocess.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace shoehorn::internal {

namespace {

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

constexpr size_t kMaxErr = 64 * 1024;

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
    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls (this process has other threads).
    std::vector<std::string> copy = args;
    std::vector<char *> argv;
    for (std::string &a : copy)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const rlimit data{limits.heapBytes, limits.heapBytes};
    const rlimit cpu{rlim_t(limits.cpuSeconds), rlim_t(limits.cpuSeconds + 1)};
    const rlimit core{0, 0};
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (withStdin)
            ::dup2(inPipe[0], 0);
        else
            ::close(0);
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        if (limits.heapBytes > 0)
            ::setrlimit(RLIMIT_DATA, &data);
        if (limits.cpuSeconds > 0)
            ::setrlimit(RLIMIT_CPU, &cpu);
        ::setrlimit(RLIMIT_CORE, &core); // a crash there is expected: no core file
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    const int saved = errno;
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
            to.erase(0, to.size() - kMaxErr);
    }
    return m_out >= 0 || m_err >= 0;
}

uint64_t processHeapBytes(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmData:", 0) == 0)
            return std::stoull(line.substr(7)) * 1024; // "VmData:   524288 kB"
    return 0;
}

} // namespace shoehorn::internal
