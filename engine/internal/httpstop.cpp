#include "httpstop.h"

#include <server-http.h>

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <thread>

namespace shoehorn::internal {

namespace {

int localPort(const sockaddr_storage &a)
{
    if (a.ss_family == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in &>(a).sin_port);
    if (a.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6 &>(a).sin6_port);
    return -1;
}

} // namespace

std::vector<int> clientSockets(int port)
{
    std::vector<int> found;
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return found;
    while (const dirent *e = readdir(dir)) {
        char *end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || fd == dirfd(dir))
            continue;
        struct stat st{};
        if (fstat(int(fd), &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        sockaddr_storage local{}, peer{};
        socklen_t n = sizeof local, m = sizeof peer;
        // A peer: a connection, not the listening socket (nor an outgoing one: its local port differs).
        if (getsockname(int(fd), reinterpret_cast<sockaddr *>(&local), &n) == 0 && localPort(local) == port &&
            getpeername(int(fd), reinterpret_cast<sockaddr *>(&peer), &m) == 0)
            found.push_back(int(fd));
    }
    closedir(dir);
    return found;
}

void stopHttp(server_http_context &http, std::chrono::milliseconds grace)
{
    http.shoehorn_stopping.store(true);
    http.stop();
    const int port = http.port;
    const auto until = std::chrono::steady_clock::now() + grace;
    while (port > 0 && !clientSockets(port).empty() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // Only shut down: httplib's thread sees its read or write fail, and closes the socket itself.
    if (port > 0)
        for (int fd : clientSockets(port))
            ::shutdown(fd, SHUT_RDWR);
    if (http.thread.joinable())
        http.thread.join();
}

} // namespace shoehorn::internal
