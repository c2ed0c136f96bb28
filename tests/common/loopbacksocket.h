#pragma once

// A plain POSIX TCP connection to 127.0.0.1 for the HTTP tests that need exact control over what
// is sent and when (a burst of silent connections, a request while the server stops).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

// A connected socket (the caller closes it), or -1. No read waits longer than readTimeoutSeconds.
inline int connectLoopback(int port, int readTimeoutSeconds = 5)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    timeval tv{readTimeoutSeconds, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}
