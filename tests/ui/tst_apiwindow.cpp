// The local API in the real window: turned on from Serve > Local API while the desktop chat
// streams, a request from the official openai npm client (another process) streams at the same
// time, then the API is turned off again; the model is never reloaded.
#include "appcore.h"
#include "apidialog.h"
#include "apicontroller.h"
#include "autotune.h"
#include "tuningcontroller.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "mainwindow.h"
#include "messageinput.h"
#include "testfixtures.h"
#include "testsettings.h"

#include <QAction>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpServer>
#include <QtTest>

#include <memory>

using ApiState = ApiController::State;

class TestApiWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void apiWhileTheChatStreams();
    void tuningPausesTheApiAndSaysSo();
};

// llama.cpp's web chat at / of the server, linked from the dialog (or why this build has none,
// on the page and in the dialog).
static void checkWebChat(const ApiDialog &dialog, const QString &baseUrl)
{
    auto *webChat = dialog.findChild<QLabel *>("webChat");
    QVERIFY(webChat);
    const QString missing = ApiController::webChatMissing();
    const QString root = baseUrl + QLatin1Char('/');
    QVERIFY2(webChat->text().contains(missing.isEmpty() ? "href=\"" + root + "\"" : missing.toHtmlEscaped()),
             qPrintable(webChat->text()));
    QNetworkAccessManager web;
    std::unique_ptr<QNetworkReply> page(web.get(QNetworkRequest(QUrl(root))));
    QTRY_VERIFY_WITH_TIMEOUT(page->isFinished(), 10000);
    QCOMPARE(page->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    const QByteArray html = page->readAll();
    if (missing.isEmpty())
        QVERIFY2(html.contains("<html") && !html.contains("Shoehorn local API"), html.left(300).constData());
    else
        QVERIFY2(html.contains(missing.toUtf8()), html.constData());
}

void TestApiWindow::apiWhileTheChatStreams()
{
    AppCore controllerApp;
    ChatController &controller = *controllerApp.chat();
    LoadedModel &lm = *controllerApp.model();
    MainWindow window(controllerApp.windowParts());
    window.setErrorPresenter([](const QString &t, const QString &m) { QFAIL(qPrintable(t + ": " + m)); });
    window.show();
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    window.openModel(TestFixtures::instance().tinyApi());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    QSignalSpy reloads(&lm, &LoadedModel::loadProgress);

    QTcpServer probe; // a port free right now
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    ApiConfig c;
    c.port = probe.serverPort();
    probe.close();
    c.key = ApiController::newKey();
    controllerApp.api()->setConfig(c);

    QAction *action = window.findChild<QAction *>("localApiAction");
    QVERIFY(action);
    action->trigger();
    ApiDialog *dialog = window.apiDialog();
    QVERIFY(dialog && dialog->isVisible());

    // The desktop chat streams (the tiny model writes until its context is full: seconds).
    QList<qint64> chatDeltas;
    connect(&controller, &ChatController::generationProgress, this,
            [&] { chatDeltas << QDateTime::currentMSecsSinceEpoch(); });
    QSignalSpy finished(&controller, &ChatController::answerFinished);
    QTest::keyClicks(window.messageInput(), "write a long answer");
    QTest::keyClick(window.messageInput(), Qt::Key_Return);
    QTRY_VERIFY(!chatDeltas.isEmpty());

    QTest::mouseClick(dialog->toggleButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(controllerApp.api()->state(), ApiState::On, 20000);
    QCOMPARE(window.findChild<QLabel *>("apiIndicator")->isVisible(), true);
    // The examples name the loaded model as the server does (the file name).
    QVERIFY(controllerApp.api()->curlExample().contains("\"model\": \"tiny-api.gguf\""));
    QVERIFY(finished.isEmpty()); // still streaming

    checkWebChat(*dialog, controllerApp.api()->baseUrl());
    if (QTest::currentTestFailed())
        return;

    QProcess node;
    node.setWorkingDirectory(SHOEHORN_API_CLIENT_DIR);
    node.start("node", {"stream.mjs", controllerApp.api()->baseUrl(), c.key, "300"});
    QVERIFY(node.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(node.state(), QProcess::NotRunning, 60000);
    const QByteArray out = node.readAllStandardOutput();
    QCOMPARE(node.exitCode(), 0);
    const QJsonObject r = QJsonDocument::fromJson(out.trimmed()).object();
    QVERIFY2(r.value("chunks").toInt() > 100, out.constData());
    QCOMPARE(r.value("model").toString(), QString("tiny-api.gguf"));
    const qint64 first = qint64(r.value("first").toDouble()), last = qint64(r.value("last").toDouble());
    int during = 0;
    for (qint64 t : chatDeltas)
        during += t >= first && t <= last;
    QVERIFY2(during > 0, "the desktop chat did not stream while the API request did");

    QTest::mouseClick(dialog->toggleButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(controllerApp.api()->state(), ApiState::Off, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000); // the chat answer ends normally
    QCOMPARE(reloads.count(), 0);
    QCOMPARE(loaded.count(), 1);
    QVERIFY(lm.hasModel());
}

// While auto-tune measures (#30) the API answers 503; the status bar and the Local API dialog
// say why, and say nothing of it once the model serves again.
void TestApiWindow::tuningPausesTheApiAndSaysSo()
{
    AppCore app;
    LoadedModel &lm = *app.model();
    MainWindow window(app.windowParts());
    window.setErrorPresenter([](const QString &t, const QString &m) { QFAIL(qPrintable(t + ": " + m)); });
    window.show();
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    window.openModel(TestFixtures::instance().tinyApi());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    ApiConfig c;
    c.port = 0;
    c.key = ApiController::newKey();
    app.api()->setConfig(c);
    app.api()->setPollInterval(20);
    window.findChild<QAction *>("localApiAction")->trigger();
    app.api()->start();
    QTRY_COMPARE_WITH_TIMEOUT(app.api()->state(), ApiState::On, 20000);
    auto *indicator = window.findChild<QLabel *>("apiIndicator");
    QVERIFY(!indicator->text().contains("paused"));
    shoehorn::TuneRequest r; // long enough trials for the status poll to see them
    r.promptTokens = 512;
    r.generateTokens = 256;
    QSignalSpy tuned(app.tuning(), &TuningController::finished);
    QVERIFY(!app.tuning()->start(r));
    QTRY_VERIFY_WITH_TIMEOUT(indicator->text().contains("(paused while auto-tune measures)"), 60000);
    QVERIFY2(window.apiDialog()->findChild<QLabel *>("apiRequests")->text().startsWith(
                 "Paused while auto-tune measures the model: requests get 503"),
             qPrintable(window.apiDialog()->findChild<QLabel *>("apiRequests")->text()));
    QTRY_COMPARE_WITH_TIMEOUT(tuned.count(), 1, 120000);
    QTRY_VERIFY_WITH_TIMEOUT(!indicator->text().contains("paused"), 10000);
    QCOMPARE(app.api()->state(), ApiState::On);
    QCOMPARE(loaded.count(), 1);
}

QTEST_MAIN(TestApiWindow)
#include "tst_apiwindow.moc"
