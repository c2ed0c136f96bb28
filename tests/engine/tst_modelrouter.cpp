// The router of `serve --models-preset` (ModelRouter) around its loader: what a load under way
// does when the server stops. The loader here is the test's own (a real model loads in a few
// milliseconds here; a 20 GB one takes a minute), so the load's length is the test's choice.
#include "loopbacksocket.h"
#include "modelrouter.h"
#include "testfixtures.h"

#include <QtTest>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

using namespace shoehorn;
using Clock = std::chrono::steady_clock;

namespace {

// POST `path` with a chat request for `model`; the whole answer, or what went wrong.
std::string ask(int port, const std::string &path, const std::string &model)
{
    const int fd = connectLoopback(port, 30);
    if (fd < 0)
        return "no connection";
    const std::string body = R"({"model": ")" + model + R"(", "messages": [{"role": "user", "content": "hi"}]})";
    const std::string req = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                            "Content-Type: application/json\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    std::string got;
    if (::send(fd, req.data(), req.size(), 0) == ssize_t(req.size())) {
        char buf[4096];
        for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
            got.append(buf, size_t(n));
    }
    ::close(fd);
    return got.empty() ? std::string("no answer") : got;
}

int portOf(const std::string &baseUrl)
{
    return std::stoi(baseUrl.substr(baseUrl.rfind(':') + 1));
}

} // namespace

class TestModelRouter : public QObject
{
    Q_OBJECT
private slots:
    void stoppingCancelsALoadUnderWay_data();
    void stoppingCancelsALoadUnderWay();
};

// SIGINT while a model loads: close() raises the loader's cancel (Model::load checks it in
// llama's progress callback) instead of waiting for the load to finish, and the request that
// asked for the model is told why it got none.
void TestModelRouter::stoppingCancelsALoadUnderWay_data()
{
    QTest::addColumn<QString>("path"); // the request that asks for the model
    QTest::newRow("a chat request") << "/v1/chat/completions";
    QTest::newRow("llama-server's /models/load") << "/models/load";
}

void TestModelRouter::stoppingCancelsALoadUnderWay()
{
    QFETCH(QString, path);
    auto args = ServerArgs::parse({"-m", TestFixtures::instance().tinyApi().toStdString(), "--port", "0"});
    QVERIFY2(args.ok(), args.ok() ? "" : args.error().detail.c_str());
    std::atomic<bool> entered{false}, sawCancel{false};
    const auto slowLoad = [&](const ServerPreset &, const std::atomic<bool> &cancel)
        -> Result<std::unique_ptr<ChatSession>> {
        entered = true;
        const auto until = Clock::now() + std::chrono::seconds(20); // a big model's load
        while (!cancel && Clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        sawCancel = cancel.load();
        return Error{ErrorCode::Cancelled, "loading cancelled"};
    };
    auto router = ModelRouter::open(*args, {ServerPreset{"slow", *args}}, slowLoad);
    QVERIFY2(router.ok(), router.ok() ? "" : router.error().detail.c_str());
    const int port = portOf((*router)->baseUrl());
    auto answer = std::async(std::launch::async, [port, p = path.toStdString()] { return ask(port, p, "slow"); });
    QTRY_VERIFY_WITH_TIMEOUT(entered.load(), 10000);

    const auto t0 = Clock::now();
    (*router)->close();
    const double closeSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    qInfo("close() during a load took %.3f s", closeSeconds);
    QVERIFY(sawCancel.load());
    QVERIFY2(closeSeconds < 5, "close() waited for the load to finish");
    const std::string got = answer.get();
    QVERIFY2(got.rfind("HTTP/1.1 503", 0) == 0, got.c_str());
    QVERIFY2(got.find("the server is stopping") != std::string::npos, got.c_str());
    QCOMPARE((*router)->loadedModel(), std::string());
}

QTEST_GUILESS_MAIN(TestModelRouter)
#include "tst_modelrouter.moc"
