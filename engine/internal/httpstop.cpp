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

// A connected TCP socket whose local port is `port`: a client of the server on that port (an
// outgoing connection's local port is an ephemeral one, a resolver's UDP socket is no stream).
bool isClientOf(int fd, int port)
{
    struct stat st{};
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return false;
    int type = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return false;
    sockaddr_storage local{}, peer{};
    socklen_t n = sizeof local, m = sizeof peer;
    return getsockname(fd, reinterpret_cast<sockaddr *>(&local), &n) == 0 && localPort(local) == port &&
           getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &m) == 0;
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
        if (isClientOf(int(fd), port))
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
    // Each checked again right before: a connection that closed meanwhile may have left its
    // number to another socket (an RPC client's, which must not be cut).
    if (port > 0)
        for (int fd : clientSockets(port))
            if (isClientOf(fd, port))
                ::shutdown(fd, SHUT_RDWR);
    if (http.thread.joinable())
        http.thread.join();
}

} // namespace shoehorn::internal
