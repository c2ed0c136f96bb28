// Who may use the local API's HTTP door: the Host check (DNS rebinding), cross-origin permission
// from a list, and the key comparison. The same functions run inside llama.cpp's request handler
// (cmake/LlamaServer.cmake); tests/api checks them there over HTTP.
#include "httpdoor.h"

#include <QtTest>

using namespace shoehorn::internal;

class TestHttpDoor : public QObject
{
    Q_OBJECT
private slots:
    void hostOf_data();
    void hostOf();
    void hosts_data();
    void hosts();
    void cors_data();
    void cors();
    void keys_data();
    void keys();
    void refusalsNameTheCause();
};

void TestHttpDoor::hostOf_data()
{
    QTest::addColumn<QString>("authority");
    QTest::addColumn<QString>("host");
    QTest::newRow("name and port") << "LocalHost:8080" << "localhost";
    QTest::newRow("name") << "127.0.0.1" << "127.0.0.1";
    QTest::newRow("v6 with port") << "[::1]:8080" << "::1";
    QTest::newRow("bare v6") << "::1" << "::1";
    QTest::newRow("trailing dot") << "localhost.:80" << "localhost";
    QTest::newRow("unclosed bracket") << "[::1:80" << "";
    QTest::newRow("empty") << "" << "";
}

void TestHttpDoor::hostOf()
{
    QFETCH(QString, authority);
    QFETCH(QString, host);
    QCOMPARE(QString::fromStdString(shoehorn::internal::hostOf(authority.toStdString())), host);
}

void TestHttpDoor::hosts_data()
{
    QTest::addColumn<QString>("bound");
    QTest::addColumn<QString>("hostHeader");
    QTest::addColumn<bool>("allowed");
    QTest::newRow("loopback, localhost") << "127.0.0.1" << "localhost:8080" << true;
    QTest::newRow("loopback, the address") << "127.0.0.1" << "127.0.0.1:8080" << true;
    QTest::newRow("loopback, v6") << "127.0.0.1" << "[::1]:8080" << true;
    QTest::newRow("loopback, no port") << "127.0.0.1" << "localhost" << true;
    QTest::newRow("loopback, no Host header") << "127.0.0.1" << "" << true;
    QTest::newRow("loopback, rebinding name") << "127.0.0.1" << "evil.example:8080" << false;
    QTest::newRow("loopback, name that contains localhost") << "127.0.0.1" << "localhost.evil.example" << false;
    QTest::newRow("loopback, other 127 address") << "127.0.0.1" << "127.0.0.2:8080" << false;
    QTest::newRow("bound to 127.0.0.5") << "127.0.0.5" << "127.0.0.5:8080" << true;
    QTest::newRow("bound to localhost") << "localhost" << "127.0.0.1:8080" << true;
    QTest::newRow("all interfaces: any name") << "0.0.0.0" << "my-pc.lan:8080" << true;
    QTest::newRow("LAN address: any name") << "192.168.1.5" << "evil.example:8080" << true;
}

void TestHttpDoor::hosts()
{
    QFETCH(QString, bound);
    QFETCH(QString, hostHeader);
    QFETCH(bool, allowed);
    QCOMPARE(hostAllowed(hostHeader.toStdString(), allowedHostsFor(bound.toStdString())), allowed);
}

void TestHttpDoor::cors_data()
{
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("hostHeader");
    QTest::addColumn<QString>("origins");
    QTest::addColumn<bool>("credentials");
    QTest::addColumn<bool>("allowed");
    QTest::addColumn<QString>("allowOrigin");
    const QString host = QStringLiteral("127.0.0.1:8080");
    QTest::newRow("no origin: not a browser's cross-origin request") << "" << host << "localhost" << true << true << "";
    QTest::newRow("default: another site") << "https://evil.example" << host << "localhost" << true << false << "";
    QTest::newRow("default: a page on this machine") << "http://localhost:3000" << host << "localhost" << true << true
                                                   << "http://localhost:3000";
    QTest::newRow("default: 127.0.0.1 page") << "http://127.0.0.1:5173" << host << "localhost" << true << true
                                           << "http://127.0.0.1:5173";
    QTest::newRow("default: v6 loopback page") << "http://[::1]:5173" << host << "localhost" << true << true
                                             << "http://[::1]:5173";
    QTest::newRow("default: file:// page (null)") << "null" << host << "localhost" << true << false << "";
    QTest::newRow("default: localhost as a subdomain") << "https://localhost.evil.example" << host << "localhost"
                                                     << true << false << "";
    QTest::newRow("same origin: the web UI on a LAN address")
        << "http://192.168.1.5:8080" << "192.168.1.5:8080" << "localhost" << true << true << "http://192.168.1.5:8080";
    QTest::newRow("same host, other port is another origin")
        << "http://192.168.1.5:9000" << "192.168.1.5:8080" << "localhost" << true << false << "";
    QTest::newRow("same origin, default port") << "http://my-pc.lan" << "my-pc.lan" << "localhost" << true << true
                                             << "http://my-pc.lan";
    // Behind a TLS proxy (serve has no --ssl-*): the browser's Host has no port, the https page's
    // is 443; this was taken for another origin and the web UI's own requests got 403.
    QTest::newRow("same origin, https default port") << "https://chat.example" << "chat.example" << "localhost" << true
                                                   << true << "https://chat.example";
    QTest::newRow("https page, Host on port 80") << "https://chat.example" << "chat.example:80" << "localhost" << true
                                               << false << "";
    QTest::newRow("listed") << "https://app.example:3000" << host << "https://app.example:3000" << true << true
                            << "https://app.example:3000";
    QTest::newRow("listed among others") << "https://b.example" << host << "https://a.example, https://b.example/"
                                         << true << true << "https://b.example";
    QTest::newRow("listed, case differs") << "https://APP.example" << host << "https://app.example" << true << true
                                          << "https://APP.example";
    QTest::newRow("not listed") << "https://c.example" << host << "https://a.example,localhost" << true << false << "";
    QTest::newRow("listed scheme differs") << "http://a.example" << host << "https://a.example" << true << false << "";
    QTest::newRow("star with credentials echoes") << "https://evil.example" << host << "*" << true << true
                                                  << "https://evil.example";
    QTest::newRow("star without credentials") << "https://evil.example" << host << "*" << false << true << "*";
    QTest::newRow("null when listed") << "null" << host << "null" << true << true << "null";
}

void TestHttpDoor::cors()
{
    QFETCH(QString, origin);
    QFETCH(QString, hostHeader);
    QFETCH(QString, origins);
    QFETCH(bool, credentials);
    QFETCH(bool, allowed);
    QFETCH(QString, allowOrigin);
    const CorsVerdict v = corsFor(origin.toStdString(), hostHeader.toStdString(), origins.toStdString(), credentials);
    QCOMPARE(v.allowed, allowed);
    QCOMPARE(QString::fromStdString(v.allowOrigin), allowOrigin);
}

void TestHttpDoor::keys_data()
{
    QTest::addColumn<QStringList>("keys");
    QTest::addColumn<QString>("given");
    QTest::addColumn<bool>("matches");
    QTest::newRow("one key") << QStringList{"sk-a"} << "sk-a" << true;
    QTest::newRow("second of two") << QStringList{"sk-a", "sk-b"} << "sk-b" << true;
    QTest::newRow("wrong") << QStringList{"sk-a", "sk-b"} << "sk-c" << false;
    QTest::newRow("prefix") << QStringList{"sk-abc"} << "sk-ab" << false;
    QTest::newRow("longer") << QStringList{"sk-ab"} << "sk-abc" << false;
    QTest::newRow("empty given") << QStringList{"sk-a"} << "" << false;
    QTest::newRow("no keys") << QStringList{} << "sk-a" << false;
    QTest::newRow("empty key never matches") << QStringList{""} << "" << false;
    QTest::newRow("nul inside") << QStringList{QStringLiteral("sk-a")} << QStringLiteral("sk-a\u0001") << false;
}

void TestHttpDoor::keys()
{
    QFETCH(QStringList, keys);
    QFETCH(QString, given);
    QFETCH(bool, matches);
    std::vector<std::string> k;
    for (const QString &s : keys)
        k.push_back(s.toStdString());
    QCOMPARE(keyMatches(k, given.toStdString()), matches);
}

void TestHttpDoor::refusalsNameTheCause()
{
    const QString host = QString::fromStdString(hostRefusal("evil.example:8080"));
    QVERIFY(host.contains("evil.example:8080"));
    QVERIFY(host.contains("DNS rebinding"));
    QVERIFY(host.contains("--host"));
    const QString origin = QString::fromStdString(originRefusal("https://evil.example", "localhost"));
    QVERIFY(origin.contains("https://evil.example"));
    QVERIFY(origin.contains("--cors-origins"));
    QVERIFY(QString::fromStdString(originRefusal("https://x.example", "https://a.example")).contains("https://a.example"));
}

QTEST_GUILESS_MAIN(TestHttpDoor)
#include "tst_httpdoor.moc"
