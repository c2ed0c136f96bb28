// The API's door while no model is loaded (ApiUnavailableDoor), as a hostile client meets it:
// llama.cpp's HTTP server with Shoehorn's fixes (cmake/LlamaFixes.cmake, engine/internal/httpstop).
// Plain POSIX sockets: a burst of connections opened one right after the other, each sending one
// byte and going silent, is what found the thread pool's race (a Node or Qt client is too slow).
#include "apiserver.h"
#include "apiunavailable.h"
#include "loopbacksocket.h"

#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace shoehorn;

namespace {

// The status line of GET /health, or what went wrong.
std::string health(int port)
{
    const int fd = connectLoopback(port);
    if (fd < 0)
        return "no connection";
    const std::string req = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    std::string got;
    if (::send(fd, req.data(), req.size(), 0) == ssize_t(req.size())) {
        char buf[256];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        got = n > 0 ? std::string(buf, size_t(n)) : std::string("no answer within 5 s");
    }
    ::close(fd);
    return got.substr(0, got.find("\r\n"));
}

struct Silent {
    std::vector<int> fds;
    void open(int port, int n)
    {
        for (int i = 0; i < n; ++i)
            if (const int fd = connectLoopback(port); fd >= 0 && ::send(fd, "G", 1, 0) == 1)
                fds.push_back(fd);
    }
    void close()
    {
        for (int fd : fds)
            ::close(fd);
        fds.clear();
    }
    ~Silent() { close(); }
};

} // namespace

class TestApiUnavailable : public QObject
{
    Q_OBJECT
private slots:
    void answersWhySilentClientsWait();
    void closesWithSilentClients();
    void aPortInUseIsLeftAlone();
    void hosts_data();
    void hosts();
};

// 30 connections that sent a byte and went silent, three bursts in a row: /health still answers.
void TestApiUnavailable::answersWhySilentClientsWait()
{
    ApiServerOptions o;
    o.port = 0;
    o.apiKeys = {"k"};
    auto door = ApiUnavailableDoor::open(o, "the model is loading", 5);
    QVERIFY2(door.ok(), door.ok() ? "" : door.error().detail.c_str());
    const int port = (*door)->port();
    Silent silent;
    for (int round = 0; round < 3; ++round) {
        silent.open(port, 30);
        QCOMPARE(int(silent.fds.size()), 30);
        const auto t0 = std::chrono::steady_clock::now();
        QCOMPARE(QString::fromStdString(health(port)), QString("HTTP/1.1 503 Service Unavailable"));
        QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
        silent.close();
    }
}

// Closing the door (turning the API off, quitting) with silent clients connected ends in about
// the 2 s grace, and the port is free again at once.
void TestApiUnavailable::closesWithSilentClients()
{
    ApiServerOptions o;
    o.port = 0;
    o.apiKeys = {"k"};
    auto door = ApiUnavailableDoor::open(o, "the model is loading", 5);
    QVERIFY(door.ok());
    o.port = (*door)->port();
    Silent silent;
    silent.open(o.port, 3);
    QCOMPARE(int(silent.fds.size()), 3);
    // Closed on a thread of its own, so that a close that hangs fails here instead of timing out.
    auto closed = std::make_shared<std::promise<void>>();
    std::thread([d = std::move(*door), closed]() mutable {
        d.reset();
        closed->set_value();
    }).detach();
    QVERIFY2(closed->get_future().wait_for(std::chrono::seconds(4)) == std::future_status::ready,
             "closing the door with silent clients connected took more than 4 s");
    auto again = ApiUnavailableDoor::open(o, "the model is loading", 5);
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().detail.c_str());
}

// A door that cannot bind its port (the API server opened there first: a tune ending while the
// user turns the API on) fails at once and leaves the connections of whoever has the port.
void TestApiUnavailable::aPortInUseIsLeftAlone()
{
    ApiServerOptions o;
    o.port = 0;
    o.apiKeys = {"k"};
    auto first = ApiUnavailableDoor::open(o, "the model is loading", 5);
    QVERIFY(first.ok());
    o.port = (*first)->port();
    const int fd = connectLoopback(o.port); // the first one's client, between two requests
    QVERIFY(fd >= 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto second = ApiUnavailableDoor::open(o, "the model is being tuned", 5);
    QVERIFY(!second.ok());
    QCOMPARE(second.error().code, ErrorCode::AddressInUse);
    QVERIFY2(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1), "the failed door waited for other clients");
    const std::string req = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    QCOMPARE(::send(fd, req.data(), req.size(), MSG_NOSIGNAL), ssize_t(req.size()));
    char buf[256];
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    ::close(fd);
    const std::string got = n > 0 ? std::string(buf, size_t(n)) : std::string("the connection was cut");
    QCOMPARE(QString::fromStdString(got.substr(0, got.find("\r\n"))), QString("HTTP/1.1 503 Service Unavailable"));
}

// What --host (and the API dialog's host) may be: this machine's, named clearly when not. A host
// that did not resolve hung serve before: every port after the one in use was looked up again.
void TestApiUnavailable::hosts_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("problem"); // empty: taken
    QTest::newRow("loopback") << "127.0.0.1" << "";
    QTest::newRow("localhost") << "localhost" << "";
    QTest::newRow("every network") << "0.0.0.0" << "";
    QTest::newRow("not this machine's") << "192.0.2.1" << "--host 192.0.2.1: not an address of this machine";
    QTest::newRow("not an address") << "999.1.1.1" << "--host 999.1.1.1: not an address, nor a name this machine resolves";
    QTest::newRow("Unix socket") << "/tmp/x.sock" << "--host /tmp/x.sock: Unix sockets are not served by Shoehorn";
}

void TestApiUnavailable::hosts()
{
    QFETCH(QString, host);
    QFETCH(QString, problem);
    const Error e = ApiServer::checkHost(host.toStdString());
    QVERIFY2(QString::fromStdString(e.detail).startsWith(problem) && bool(e) == !problem.isEmpty(), e.detail.c_str());
}

QTEST_GUILESS_MAIN(TestApiUnavailable)
#include "tst_apiunavailable.moc"
