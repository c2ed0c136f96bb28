// The local API from the GUI thread's side, on the real worker and a tiny model: it serves the
// model the chat loaded, never loads one itself, follows a model change, and says what failed.
#include "apicontroller.h"
#include "apihost.h"
#include "appsettings.h"
#include "diagnostics.h"
#include "hardware.h"
#include "inferencesession.h"
#include "testfixtures.h"
#include "testsettings.h"
#include "worker.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QJsonObject>
#include <QJsonDocument>
#include <QJsonArray>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QtTest>

using State = ApiController::State;

class TestApiController : public QObject
{
    Q_OBJECT
private:
    static ApiConfig anyPort()
    {
        ApiConfig c;
        c.port = 0; // any free port: tests run side by side
        c.key = QStringLiteral("sk-test-key");
        return c;
    }
    // On, on a free port with the test key, polled every 50 ms.
    [[nodiscard]] static bool startOnAnyPort(ApiController &api)
    {
        api.setConfig(anyPort());
        return startAsConfigured(api);
    }
    [[nodiscard]] static bool startAsConfigured(ApiController &api)
    {
        api.setPollInterval(50);
        api.start();
        return QTest::qWaitFor([&] { return api.state() == State::On; }, 20000);
    }
    [[nodiscard]] static bool load(InferenceSession &s)
    {
        QSignalSpy loaded(&s, &InferenceSession::modelLoaded);
        s.load(TestFixtures::instance().tinyApi(), {}, {});
        return QTest::qWaitFor([&] { return loaded.count() == 1; }, 30000);
    }
    // HTTP status of GET url+path with the key (0: no answer).
    static int get(const QString &url, const QString &path, QByteArray *body = nullptr,
                   const QByteArray &key = "sk-test-key")
    {
        QNetworkAccessManager net;
        QNetworkRequest r(QUrl(url + path));
        if (!key.isEmpty())
            r.setRawHeader("Authorization", "Bearer " + key);
        QNetworkReply *reply = net.get(r);
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!done.wait(10000))
            return 0;
        if (body)
            *body = reply->readAll();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

private slots:
    void startWhileTuningAnswers503();
    void startAndStopWhileTheLoopRestarts();
    void initTestCase() { isolateSettings(); }
    void init() { AppSettings::waitForWrites(); } // an earlier test's controller saves in the background
    void needsALoadedModel();
    void servesTheLoadedModelWithoutReloading();
    void apiOnAndOffWhileTheChatStreams();
    void tuningIsAModeOfTheEngine();
    void desktopSlotIsNotTheApis();
    void followsAModelChange();
    void failedRestartOnANewModelIsReported();
    void portInUseOffersAFreeOne();
    void refusesAnOpenHostWithoutKey();
    void keyIsStoredForTheUserOnly();
    void keyThatCannotBeSavedIsSaid();
    void firstStartMakesAKeyAndRefusalsAreCounted();
    void noKeyIsTheUsersChoice();
    void exposuresAreNamed_data();
    void exposuresAreNamed();
};

void TestApiController::needsALoadedModel()
{
    InferenceSession session;
    ApiController api(session.apiHost());
    api.setConfig(anyPort());
    QSignalSpy failed(&api, &ApiController::failed);
    api.start();
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::NoModel);
    QCOMPARE(api.state(), State::Off);
}

void TestApiController::servesTheLoadedModelWithoutReloading()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    api.setConfig(anyPort());
    api.setPollInterval(100);
    QSignalSpy reloads(&session, &InferenceSession::loadProgress);
    QSignalSpy loaded(&session, &InferenceSession::modelLoaded);
    QSignalSpy status(&api, &ApiController::statusUpdated);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    QVERIFY(api.baseUrl().startsWith("http://127.0.0.1:"));
    QByteArray body;
    QCOMPARE(get(api.baseUrl(), "/v1/models", &body), 200);
    // The loaded model, by its file's name, in the OpenAI list.
    const QJsonArray listed = QJsonDocument::fromJson(body).object().value("data").toArray();
    QCOMPARE(listed.size(), 1);
    QCOMPARE(listed.first().toObject().value("id").toString(), QString("tiny-api.gguf"));
    QTRY_VERIFY(status.count() >= 2);
    QCOMPARE(int(api.status().slotStates.size()), 2);
    QVERIFY(api.status().requests >= 1);
    QVERIFY(api.curlExample().contains(api.baseUrl() + "/v1/chat/completions"));
    QSignalSpy alias(&api, &ApiController::modelAliasChanged);
    api.setModelAlias("tiny-api.gguf");
    api.setModelAlias("tiny-api.gguf");
    QCOMPARE(alias.count(), 1);
    QVERIFY(api.pythonExample().contains("model=\"tiny-api.gguf\""));
    // The examples read the key from the environment; they never print it.
    QVERIFY(api.curlExample().contains("Bearer $SHOEHORN_API_KEY"));
    QVERIFY(api.curlExample().contains(ApiController::keyExport()));
    QVERIFY(api.pythonExample().contains("os.environ[\"SHOEHORN_API_KEY\"]"));
    QVERIFY(api.javascriptExample().contains("process.env.SHOEHORN_API_KEY"));
    for (const QString &example : {api.curlExample(), api.pythonExample(), api.javascriptExample()})
        QVERIFY2(!example.contains("sk-test-key"), qPrintable(example));

    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
    QVERIFY(!session.apiHost()->running());
    QCOMPARE(reloads.count(), 0);
    QCOMPARE(loaded.count(), 0);
    QVERIFY(session.hasModel());
}

// The API is a door onto the model's one server loop: turning it on and off while the desktop
// chat writes creates no context and no projector, frees none, leaves the memory as it was, and
// the answer goes on streaming through it.
void TestApiController::apiOnAndOffWhileTheChatStreams()
{
    InferenceSession session;
    QVERIFY(load(session));
    QCOMPARE(shoehorn::liveEngineObjects().serverContexts, 1);
    ApiController api(session.apiHost());
    api.setConfig(anyPort());
    api.setPollInterval(50);
    QSignalSpy deltas(&session, &InferenceSession::delta);
    QSignalSpy finished(&session, &InferenceSession::generationFinished);
    QSignalSpy failed(&session, &InferenceSession::generationFailed);
    shoehorn::GenerationOptions o;
    o.maxTokens = 1500; // seconds of streaming on the tiny model
    o.ignoreEos = true;
    const shoehorn::ProcessMemory before = shoehorn::processMemory();
    session.generate({{"user", "Write a long story.", {}}}, o);
    QTRY_VERIFY_WITH_TIMEOUT(deltas.count() > 3, 20000);
    for (int round = 0; round < 2; ++round) {
        api.start();
        QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
        QCOMPARE(get(api.baseUrl(), "/health"), 200);
        const int streamed = deltas.count();
        QTRY_VERIFY_WITH_TIMEOUT(deltas.count() > streamed, 10000); // the chat still writes
        QCOMPARE(shoehorn::liveEngineObjects().serverContexts, 1);
        QCOMPARE(shoehorn::liveEngineObjects().projectors, 0);
        api.stop();
        QTRY_COMPARE(api.state(), State::Off);
        QCOMPARE(shoehorn::liveEngineObjects().serverContexts, 1);
    }
    const shoehorn::ProcessMemory after = shoehorn::processMemory();
    QVERIFY(finished.isEmpty() && failed.isEmpty()); // still answering: the toggles came mid-answer
    // Resident memory: the HTTP threads' stacks and buffers, no KV cache or compute buffer.
    const qint64 grown = qint64(after.anonymousBytes) - qint64(before.anonymousBytes);
    QVERIFY(before.known && after.known); // /proc/self/status: always there on Linux
    QVERIFY2(grown < (32ll << 20), qPrintable(QString::number(grown >> 20) + " MiB more"));
    session.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QVERIFY(failed.isEmpty());
}

// Auto-tune inside the one engine (#30): while it measures, the chat's loop and context are gone
// (never a benchmark context beside them), the weights are held once, and the API's address
// The API turned on while a model is being tuned (no session published): its address answers 503
// with the reason until the session comes back. The door was opened and dropped at once before.
void TestApiController::startWhileTuningAnswers503()
{
    ApiHost host;
    host.setUnavailable("auto-tune is measuring this model", 30); // not wanted yet: nothing opens
    QVERIFY(!host.running());
    shoehorn::ApiServerOptions o;
    o.port = 0;
    o.apiKeys = {"sk-test-key"};
    const shoehorn::Error e = host.start(o);
    QVERIFY2(!e, e.detail.c_str());
    QVERIFY(host.running());
    const auto st = host.status();
    QVERIFY(st && !st->baseUrl.empty());
    QByteArray body;
    QCOMPARE(get(QString::fromStdString(st->baseUrl), "/health", &body), 503);
    QVERIFY2(body.contains("auto-tune is measuring"), body.constData());
    host.stop();
    QVERIFY(!host.running());
}

// A new projector starts the session's loop again (the worker withdraws the server, and
// publishes it again after): a Stop meanwhile keeps the API off, a Start meanwhile opens it
// on the new loop, not "load a model first".
void TestApiController::startAndStopWhileTheLoopRestarts()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    QVERIFY(startOnAnyPort(api));
    ApiHost &host = *session.apiHost();
    const QString url = api.baseUrl();
    const auto served = [&] { return get(url, "/health") == 200; };
    QVERIFY(served());
    // The worker's steps around ChatSession::setProjector, with the user's click between them.
    const std::shared_ptr<shoehorn::ApiServer> published = host.server();
    QVERIFY(published && published->isOpen());
    host.withdraw();
    QVERIFY(!published->isOpen()); // the old loop's HTTP side goes with it
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
    host.setServer(published);
    QVERIFY(!published->isOpen());
    QVERIFY(!host.running());
    host.withdraw();
    api.start();
    QTest::qWait(300);
    QCOMPARE(api.state(), State::Starting); // it waits for the loop: not On before it serves
    QVERIFY(!published->isOpen());
    host.setServer(published);
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000); // not "load a model first"
    QVERIFY(published->isOpen());
    QTRY_VERIFY(get(api.baseUrl(), "/health") == 200);
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);

    // A Stop while that Start waits: Off holds, and the Start's late answer does not turn it On.
    host.withdraw();
    QSignalSpy states(&api, &ApiController::stateChanged);
    QSignalSpy failedEarly(&api, &ApiController::failed);
    api.start();
    QTest::qWait(100);
    QCOMPARE(api.state(), State::Starting);
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
    QTest::qWait(300); // the waiting start's answer comes back meanwhile
    QCOMPARE(api.state(), State::Off);
    for (const auto &args : states)
        QVERIFY(args.at(0).value<State>() != State::On);
    QVERIFY(failedEarly.isEmpty());
    host.setServer(published);
    QVERIFY(!published->isOpen());

    // A Start while the loop restarts on a port another program took meanwhile: refused with
    // the offer of a free port, as at any Start (not On first and a bare error later).
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    ApiConfig c = anyPort();
    c.port = probe.serverPort();
    probe.close();
    api.setConfig(c);
    QVERIFY(startAsConfigured(api));
    host.withdraw();
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, quint16(c.port)));
    QSignalSpy failed(&api, &ApiController::failed);
    api.start();
    QTest::qWait(100);
    QCOMPARE(api.state(), State::Starting);
    host.setServer(published);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::AddressInUse);
    QVERIFY(failed.at(0).at(1).toInt() > c.port);
    QCOMPARE(api.state(), State::Off);
    QVERIFY(!published->isOpen());
}

// answers 503 with Retry-After and the reason; afterwards the same model serves again.
void TestApiController::tuningIsAModeOfTheEngine()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    QVERIFY(startOnAnyPort(api));
    const QString url = api.baseUrl();
    QCOMPARE(get(url, "/v1/models"), 200);
    QCOMPARE(shoehorn::liveEngineObjects().models, 1);

    shoehorn::TuneRequest r;
    r.promptTokens = 64;
    r.generateTokens = 16;
    r.threads = {2};
    QSignalSpy finished(&session, &InferenceSession::tuningFinished);
    QSignalSpy reloaded(&session, &InferenceSession::modelLoaded);
    QVERIFY(!session.startTuning(r));
    bool measuring = false, together = false, answered503 = false;
    int noKeyStatus = 0;
    QString unavailable;
    std::string statusSaid; // the API's status during a trial
    // Every trial is watched for a loop or a second model beside it, not only the first.
    QDeadlineTimer deadline(120000);
    while (finished.isEmpty() && !deadline.hasExpired()) {
        const auto o = shoehorn::liveEngineObjects();
        together = together || o.models > 1 || (o.serverContexts > 0 && o.benchmarkContexts > 0);
        if (statusSaid.empty() && o.serverContexts == 0 && o.benchmarkContexts > 0) {
            measuring = true;
            QNetworkAccessManager net;
            QNetworkRequest req(QUrl(url + "/v1/models"));
            req.setRawHeader("Authorization", "Bearer sk-test-key");
            QNetworkReply *reply = net.get(req);
            QSignalSpy done(reply, &QNetworkReply::finished);
            if (done.wait(5000) && reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 503 &&
                reply->rawHeader("Retry-After") == "30") {
                answered503 = true;
                unavailable = QString::fromUtf8(reply->readAll());
                // The door keeps the API's key: without it, 401 as before.
                noKeyStatus = get(url, "/v1/models", nullptr, QByteArray());
            }
            reply->deleteLater();
            if (answered503 && api.status().unavailable.empty())
                QTest::qWait(60); // the status poll says it too
            if (answered503)
                statusSaid = api.status().unavailable;
        }
        QTest::qWait(2);
    }
    QVERIFY2(measuring, "no trial was seen");
    QVERIFY2(answered503, "the API did not answer 503 with Retry-After during a trial");
    QVERIFY2(unavailable.contains("auto-tune is measuring"), qPrintable(unavailable));
    QCOMPARE(noKeyStatus, 401);
    QVERIFY2(QString::fromStdString(statusSaid).contains("auto-tune"), statusSaid.c_str());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 120000);
    QVERIFY2(!together, "the loop's context or a second model was alive during a trial");
    // Back as before: one model, one loop, the API answers, the chat was not reloaded by the app.
    const auto after = shoehorn::liveEngineObjects();
    QCOMPARE(after.models, 1);
    QCOMPARE(after.serverContexts, 1);
    QCOMPARE(after.benchmarkContexts, 0);
    QCOMPARE(get(url, "/v1/models"), 200);
    QCOMPARE(session.state(), InferenceSession::State::Ready);
    QCOMPARE(reloaded.count(), 0);
    QSignalSpy answered(&session, &InferenceSession::generationFinished);
    shoehorn::GenerationOptions o;
    o.maxTokens = 4;
    session.generate({{"user", "hi", {}}}, o);
    QTRY_COMPARE_WITH_TIMEOUT(answered.count(), 1, 20000);
}

// The desktop chat's slot (0) is not the API's: /slots leaves it out and a slot action on it is
// refused, whatever --slot-save-path would allow.
void TestApiController::desktopSlotIsNotTheApis()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    api.setConfig(anyPort());
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    QByteArray body;
    QCOMPARE(get(api.baseUrl(), "/slots", &body), 200);
    const QJsonArray slotList = QJsonDocument::fromJson(body).array();
    QVERIFY(!slotList.isEmpty());
    for (const auto &slot : slotList)
        QVERIFY(slot.toObject().value("id").toInt() != 0);
    QNetworkAccessManager net;
    QNetworkRequest r(QUrl(api.baseUrl() + "/slots/0?action=erase"));
    r.setRawHeader("Authorization", "Bearer sk-test-key");
    r.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply *reply = net.post(r, QByteArray("{}"));
    QSignalSpy done(reply, &QNetworkReply::finished);
    QVERIFY(done.wait(10000));
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 403);
    const QByteArray said = reply->readAll();
    QVERIFY2(said.contains("is the desktop chat's, not the API's"), said.constData());
    reply->deleteLater();
}

void TestApiController::followsAModelChange()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    ApiConfig c = anyPort();
    api.setConfig(c);
    api.setPollInterval(100);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    // Loading again frees the old model: the server lets go first and comes back on the new one.
    QVERIFY(load(session));
    QVERIFY(session.apiHost()->running());
    QTRY_VERIFY(get(api.baseUrl(), "/health") == 200);
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
}

void TestApiController::failedRestartOnANewModelIsReported()
{
    // The API runs on a fixed port; while the model is reloaded another program takes that port.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    ApiConfig c = anyPort();
    c.port = probe.serverPort();
    probe.close();
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    api.setConfig(c);
    api.setPollInterval(50);
    QSignalSpy failed(&api, &ApiController::failed);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    session.apiHost()->setServer(nullptr); // what the worker does first when it loads another model
    QTcpServer thief;
    QVERIFY(thief.listen(QHostAddress::LocalHost, quint16(c.port)));
    QVERIFY(load(session));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::AddressInUse);
    QCOMPARE(api.state(), State::Off);
    QVERIFY(!session.apiHost()->running());
}

void TestApiController::portInUseOffersAFreeOne()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost));
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    ApiConfig c = anyPort();
    c.port = taken.serverPort();
    api.setConfig(c);
    QSignalSpy failed(&api, &ApiController::failed);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::AddressInUse);
    const int offered = failed.at(0).at(1).toInt();
    QVERIFY(offered > c.port);
    QCOMPARE(api.state(), State::Off);
}

void TestApiController::refusesAnOpenHostWithoutKey()
{
    InferenceSession session;
    ApiController api(session.apiHost());
    ApiConfig c = anyPort();
    c.host = "0.0.0.0";
    c.noKey = true;
    api.setConfig(c);
    QSignalSpy failed(&api, &ApiController::failed);
    api.start();
    QCOMPARE(failed.count(), 1); // refused at once, before any thread
    const auto e = failed.at(0).at(0).value<shoehorn::Error>();
    QCOMPARE(e.code, shoehorn::ErrorCode::InvalidArgument);
    QVERIFY(QString::fromStdString(e.detail).contains("set an API key"));
}

void TestApiController::keyIsStoredForTheUserOnly()
{
    ApiConfig c;
    c.key = QStringLiteral("sk-shoehorn-0123");
    c.port = 8123;
    c.metrics = true;
    ApiController::saveConfig(c);
    QFile f(ApiController::keyFilePath());
    QVERIFY(f.exists());
    QCOMPARE(f.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup |
                                QFileDevice::WriteOther),
             QFileDevice::Permissions());
    QCOMPARE(ApiController::loadConfig(), c);
    QSettings s;
    for (const QString &k : s.allKeys())
        QVERIFY2(!s.value(k).toString().contains("sk-shoehorn-0123"), qPrintable(k));
    const std::string key = shoehorn::ApiServer::generateKey();
    QCOMPARE(key.size(), size_t(12 + 64));
    QVERIFY(key != shoehorn::ApiServer::generateKey());
}

// The settings are saved off the GUI thread; a key that cannot be saved (here its path is a
// folder; a full disk alike) is said, naming the file, and the key still works until the next
// start. A key that cannot be removed is said too.
void TestApiController::keyThatCannotBeSavedIsSaid()
{
    InferenceSession session;
    ApiController api(session.apiHost());
    QFile::remove(ApiController::keyFilePath()); // an earlier test's
    QVERIFY(QDir().mkpath(ApiController::keyFilePath()));
    QSignalSpy problem(&api, &ApiController::keyProblemChanged);
    ApiConfig c = anyPort();
    c.key = QStringLiteral("sk-shoehorn-kept");
    QElapsedTimer t;
    t.start();
    api.setConfig(c);
    qInfo("setConfig took %lld us on the GUI thread", t.nsecsElapsed() / 1000);
    QTRY_COMPARE(problem.count(), 1);
    QCOMPARE(api.keyProblem().code, shoehorn::ErrorCode::FileUnwritable);
    QVERIFY2(QString::fromStdString(api.keyProblem().detail)
                 .startsWith("the API key could not be saved to " + ApiController::keyFilePath()),
             api.keyProblem().detail.c_str());
    QCOMPARE(api.config().key, c.key);
    QCOMPARE(ApiController::loadConfig().port, c.port); // the other settings are kept
    QFile(ApiController::keyFilePath() + "/x").open(QIODevice::WriteOnly); // a folder that cannot be removed
    c.key.clear();
    api.setConfig(c);
    QTRY_COMPARE(problem.count(), 2);
    QVERIFY(QString::fromStdString(api.keyProblem().detail).startsWith("the old API key could not be removed"));
    QVERIFY(QDir(ApiController::keyFilePath()).removeRecursively());
    api.setConfig(c); // saved now: no problem any more
    QTRY_COMPARE(problem.count(), 3);
    QVERIFY(!api.keyProblem());
}

// Safe by default: the first start makes a key and requires it; a request without it or with a
// wrong one is refused, and the status counts it among the requests and names it.
void TestApiController::firstStartMakesAKeyAndRefusalsAreCounted()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    ApiConfig c = anyPort();
    c.key.clear();
    api.setConfig(c);
    AppSettings::waitForWrites(); // saved on the settings writer's thread
    QVERIFY(!QFile::exists(ApiController::keyFilePath()));
    api.setPollInterval(100);
    QSignalSpy changed(&api, &ApiController::configChanged);
    api.start();
    QCOMPARE(changed.count(), 1);
    const QString key = api.config().key;
    QVERIFY(key.startsWith("sk-shoehorn-"));
    QCOMPARE(ApiController::loadConfig().key, key);
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    QCOMPARE(get(api.baseUrl(), "/v1/models", nullptr, QByteArray()), 401);
    QCOMPARE(get(api.baseUrl(), "/v1/models", nullptr, "sk-wrong"), 401);
    QCOMPARE(get(api.baseUrl(), "/v1/models", nullptr, key.toUtf8()), 200);
    QTRY_COMPARE(api.status().refused, 2ull);
    QVERIFY(api.status().requests >= 3);
    const auto &errors = api.status().lastErrors;
    QVERIFY(errors.size() >= 2);
    QVERIFY2(QString::fromStdString(errors[errors.size() - 2]).contains("GET /v1/models: 401 no API key"),
             errors[errors.size() - 2].c_str());
    QVERIFY2(QString::fromStdString(errors.back()).contains("401 wrong API key (from 127.0.0.1)"), errors.back().c_str());
    api.stop();
    QTRY_COMPARE(api.state(), State::Off);
    // A second start keeps the key.
    api.start();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(api.config().key, key);
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
}

void TestApiController::noKeyIsTheUsersChoice()
{
    InferenceSession session;
    QVERIFY(load(session));
    ApiController api(session.apiHost());
    ApiConfig c = anyPort();
    c.key.clear();
    c.noKey = true;
    api.setConfig(c);
    QSignalSpy changed(&api, &ApiController::configChanged);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), State::On, 20000);
    QCOMPARE(changed.count(), 0);
    QVERIFY(api.config().key.isEmpty());
    QCOMPARE(get(api.baseUrl(), "/v1/models", nullptr, QByteArray()), 200);
    QVERIFY(!api.curlExample().contains("Authorization"));
    QCOMPARE(ApiController::loadConfig().noKey, true);
}

void TestApiController::exposuresAreNamed_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("origins");
    QTest::addColumn<bool>("noKey");
    QTest::addColumn<QStringList>("named");
    QTest::newRow("default: nothing") << "127.0.0.1" << "localhost" << false << QStringList{};
    QTest::newRow("listed origins: nothing") << "127.0.0.1" << "https://app.example" << false << QStringList{};
    QTest::newRow("all interfaces") << "0.0.0.0" << "localhost" << false << QStringList{"other computers"};
    // No host yet (refused at Start): "other computers that reach  can use the API" before.
    QTest::newRow("no host") << "" << "localhost" << false << QStringList{};
    QTest::newRow("not a host") << "not a host!!" << "localhost" << false << QStringList{};
    QTest::newRow("a host name") << "gpu-box.lan" << "localhost" << false << QStringList{"other computers"};
    QTest::newRow("IPv6") << "::" << "localhost" << false << QStringList{"other computers"};
    QTest::newRow("every site") << "127.0.0.1" << "*" << false << QStringList{"every web site"};
    QTest::newRow("no key") << "127.0.0.1" << "localhost" << true << QStringList{"no key"};
    QTest::newRow("all three") << "192.168.1.5" << "https://a.example, *" << true
                               << QStringList{"other computers", "every web site", "no key"};
}

void TestApiController::exposuresAreNamed()
{
    QFETCH(QString, host);
    QFETCH(QString, origins);
    QFETCH(bool, noKey);
    QFETCH(QStringList, named);
    ApiConfig c;
    c.host = host;
    c.corsOrigins = origins;
    c.noKey = noKey;
    const QStringList got = ApiController::exposures(c);
    QCOMPARE(got.size(), named.size());
    for (int i = 0; i < named.size(); ++i)
        QVERIFY2(got[i].contains(named[i]), qPrintable(got[i]));
}

QTEST_MAIN(TestApiController)
#include "tst_apicontroller.moc"
