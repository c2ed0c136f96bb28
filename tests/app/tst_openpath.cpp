// Every kind of malformed GGUF through the app's open path (ChatController on the real worker):
// the load fails with the inspector's code and the message that names the field, no crash, no
// hang, nothing loaded; the same controller then opens a good file.
#include "apicontroller.h"
#include "apihost.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "malformedfiles.h"
#include "offloadcontroller.h"
#include "testfixtures.h"
#include "testsettings.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestOpenPath : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void malformedFileIsRefused_data();
    void malformedFileIsRefused();
    void draftThatFailsTheCheckIsLeftOut();
    void aRefusedFileKeepsTheLoadedModel();
};

void TestOpenPath::malformedFileIsRefused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("detail");
    for (const MalformedFile &f : malformedFiles() + dryRunFiles()) // dry run: the first-open check's helper
        QTest::newRow(qPrintable(f.kind)) << f.bytes << f.code << f.detail;
}

void TestOpenPath::malformedFileIsRefused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, code);
    QFETCH(QString, detail);
    QTemporaryDir dir;
    const QString path = dir.filePath("downloaded.gguf");
    QVERIFY(writeBytes(path, bytes));
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    lm.openModel(path);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    const auto error = failed.at(0).at(0).value<shoehorn::Error>();
    QCOMPARE(int(error.code), code);
    QVERIFY2(QString::fromStdString(error.detail).contains(detail), error.detail.c_str());
    QVERIFY(!lm.hasModel());
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

// A draft model (-md) is read by llama.cpp in this process as the model is, so it passes the same
// check. This one is readable by Shoehorn's own header reader and has the model's vocabulary, but
// llama.cpp aborts on it (an assertion while building its graph): it is left out, the model loads
// without speculation and says why, and llama.cpp's dry run of those settings names it.
void TestOpenPath::draftThatFailsTheCheckIsLeftOut()
{
    const QString assertion = "n_embd_head == n_rot";
    QTemporaryDir dir;
    const QString draft = dir.filePath("draft.gguf");
    QVERIFY(writeDryRunFile(assertion, draft));
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    auto context = lm.contextSettings();
    context.speculation.draftModel = draft.toStdString();
    lm.setContextSettings(context);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    const QString model = TestFixtures::instance().tinyMoe();
    lm.openModel(model);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    const auto summary = loaded.at(0).at(0).value<ModelSummary>();
    QCOMPARE(summary.speculationOff.why, shoehorn::SpeculationOff::Why::DraftFailedCheck);
    QCOMPARE(QString::fromStdString(summary.speculationOff.detail), draft);
    QVERIFY2(QString::fromStdString(summary.speculationOff.reason).startsWith("llama.cpp ") &&
                 QString::fromStdString(summary.speculationOff.reason).contains(assertion),
             summary.speculationOff.reason.c_str());
    // Named once: "-md /x/draft.gguf: llama.cpp stopped ...", not "...: draft.gguf: llama.cpp ...".
    QVERIFY2(summary.speculationOff.sentence.find(": draft.gguf: ") == std::string::npos,
             summary.speculationOff.sentence.c_str());
    QCOMPARE(QString::fromStdString(summary.context.speculation.draftModel), draft); // as asked
    // The offload panel plans what runs (no draft: the gauges against the load read -55 % with it),
    // and the setting stays the user's.
    OffloadController &panel = *cApp.offload();
    QTRY_VERIFY(panel.info().has_value() && panel.modelPath() == model);
    QVERIFY(panel.planSettings().context.speculation.draftModel.empty());
    QCOMPARE(QString::fromStdString(lm.modelSettings().context.speculation.draftModel), draft);

    shoehorn::PlanSettings plan;
    plan.load = summary.load;
    plan.context = context;
    QSignalSpy checked(&lm, &LoadedModel::exactPlanFinished);
    lm.requestExactPlan(model, plan, shoehorn::PlanTarget{});
    QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 30000);
    const auto check = checked.at(0).at(0).value<ExactCheck>();
    QVERIFY(!check.ok);
    QCOMPARE(check.error.code, shoehorn::ErrorCode::FileCheckFailed);
    QVERIFY2(QString::fromStdString(check.error.detail).startsWith("-md " + draft + ": llama.cpp"),
             check.error.detail.c_str());
}

// A file that fails the check is refused before anything is dropped: the model loaded before
// stays, with its own settings, and the local API keeps serving it (the old model was unloaded
// first, and the window still said the API was on while nothing answered).
void TestOpenPath::aRefusedFileKeepsTheLoadedModel()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.gguf");
    QVERIFY(writeBytes(bad, "hello\n"));
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    const QString good = TestFixtures::instance().tinyApi();
    lm.openModel(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
    ModelSettings own = lm.modelSettings();
    own.context.contextSize = 1024; // the bad file's open asks for other settings (the defaults)
    lm.setModelSettings(own);
    ApiController &api = *cApp.api();
    ApiConfig config;
    config.port = 0;
    config.key = QStringLiteral("sk-test-key");
    api.setConfig(config);
    api.start();
    QTRY_COMPARE_WITH_TIMEOUT(api.state(), ApiController::State::On, 20000);

    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    OffloadController &panel = *cApp.offload();
    QVERIFY(panel.measured() != nullptr);
    panel.setModelPath(bad); // as the window opens a file
    lm.openModel(bad);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    panel.setModelPath(good); // as the window shows the loaded model again
    QVERIFY(panel.measured() != nullptr); // its figures at load are back with it
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::NotGguf);
    QCOMPARE(lm.state(), LoadedModel::State::Ready);
    QVERIFY(lm.hasModel());
    QCOMPARE(lm.model().path, good);
    QCOMPARE(lm.modelSettings().context.contextSize, 1024u);
    QCOMPARE(loaded.count(), 1); // nothing loaded again
    QVERIFY(cApp.session()->apiHost()->running());
    QNetworkAccessManager net;
    QNetworkRequest request(QUrl(api.baseUrl() + "/v1/models"));
    request.setRawHeader("Authorization", "Bearer sk-test-key");
    QNetworkReply *reply = net.get(request);
    QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
    QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    QVERIFY2(reply->readAll().contains("tiny-api.gguf"), "the API lists another model");
    delete reply;
    api.stop();
    QTRY_COMPARE(api.state(), ApiController::State::Off);
}

QTEST_GUILESS_MAIN(TestOpenPath)
#include "tst_openpath.moc"
