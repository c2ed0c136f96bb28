// Vision projectors from the GUI thread's side, on the real worker and the tiny vision pair:
// found beside the model and loaded after it, chosen and remembered per model, images sent,
// stored and answered, and refused (with everything kept) where the model cannot see.
#include "appcore.h"
#include "apicontroller.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "fixtures.h"
#include "modelsettings.h"
#include "testfixtures.h"
#include "testsettings.h"
#include "visioncontroller.h"
#include "diagnostics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestVisionController : public QObject
{
    Q_OBJECT
private:
    [[nodiscard]] static bool loadAndSee(AppCore &cApp, const QString &path, bool wantVision)
    {
        ChatController &c = *cApp.chat();
        LoadedModel &lm = *cApp.model();
        QSignalSpy vision(cApp.vision(), &VisionController::visionChanged);
        QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
        // A random-weight model talks until the context is full; a few tokens show the answer.
        auto o = c.generationOptions();
        o.maxTokens = 16;
        lm.setGenerationOptions(o);
        lm.openModel(path);
        if (!QTest::qWaitFor([&] { return loaded.count() == 1; }, 30000))
            return false;
        return !wantVision || QTest::qWaitFor([&] { return cApp.vision()->canSeeImages(); }, 30000);
    }
    static ChatImage picture(int seed = 0)
    {
        auto img = VisionController::imageFromBytes(TestFixtures::bmpImage(64, 48, seed));
        return img ? *img : ChatImage{};
    }

private slots:
    void initTestCase() { isolateSettings(); }
    void candidatesAndResolve();
    void imageChecks_data();
    void imageChecks();
    void pairedAutomaticallyAndAnswers();
    void choiceIsRememberedAndAppliedWithoutReload();
    void modelWithoutProjectorRefusesImages();
    void theLocalApiSeesImagesToo();
    void brokenProjectorIsCheckedFirst();
};

void TestVisionController::candidatesAndResolve()
{
    TestFixtures &f = TestFixtures::instance();
    const QString model = f.tinyVision();
    const QString f16 = f.projector("F16"), f32 = f.projector("F32");
    const auto found = VisionController::candidates(model);
    QCOMPARE(found.size(), 2);
    QCOMPARE(found[0].path, f16);
    QCOMPARE(found[0].precision, QString("F16"));
    QCOMPARE(found[1].precision, QString("F32"));
    QVERIFY(!found[0].mismatch);
    // What a choice resolves to, found on a pool thread (the GUI thread never waits for it).
    AppCore cApp;
    VisionController *v = cApp.vision();
    QSignalSpy ready(v, &VisionController::factsReady);
    auto facts = [&](const QString &m, const QString &choice) {
        std::optional<VisionController::Facts> got = v->facts(m, choice);
        if (!got)
            (void)QTest::qWaitFor([&] { return bool(got = v->facts(m, choice)); }, 20000);
        VisionController::Facts never;
        never.projector = QStringLiteral("(never found)");
        return got.value_or(never);
    };
    const auto automatic = facts(model, QString());
    QCOMPARE(automatic.projector, f16); // automatic: the best beside it
    QCOMPARE(automatic.precision, QString("F16"));
    QVERIFY(automatic.gpuBytes > 0 && automatic.cpuBytes > 0); // llama.cpp's dry run of it
    QCOMPARE(automatic.candidates.size(), 2);
    QCOMPARE(facts(model, f32).projector, f32);
    QCOMPARE(facts(model, ModelSettings::kNoProjector).projector, QString());
    QVERIFY(ready.count() >= 3);
    // Beside another model, a projector of the wrong width is listed as not belonging.
    QTemporaryDir dir;
    QFile::copy(f.tinyApi(), dir.filePath("tiny.gguf"));
    QFile::copy(f.projectorMismatch(), dir.filePath("mmproj-other-F16.gguf"));
    const auto other = VisionController::candidates(dir.filePath("tiny.gguf"));
    QCOMPARE(other.size(), 1);
    QCOMPARE(other[0].mismatch.code, shoehorn::ErrorCode::ProjectorMismatch);
    QCOMPARE(facts(dir.filePath("tiny.gguf"), QString()).projector, QString());
    QVERIFY(VisionController::isProjectorFile(f16));
    QVERIFY(!VisionController::isProjectorFile(model));
}

void TestVisionController::imageChecks_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("mime"); // empty: refused
    QTest::newRow("bmp") << TestFixtures::bmpImage(10, 10) << "image/bmp";
    QTest::newRow("text") << QByteArray("plain text") << "";
    QTest::newRow("empty") << QByteArray() << "";
    QTest::newRow("webp") << QByteArray("RIFF\x10\0\0\0WEBPVP8 ", 16) << "";
    // A PNG cut off after its header: the header reads, the pixels do not.
    QTest::newRow("cut-off png") << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x40\0\0\0\x40\x08\x02\0\0\0\0\0\0\0", 33)
                                 << "";
}

void TestVisionController::imageChecks()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, mime);
    auto r = VisionController::imageFromBytes(bytes);
    QCOMPARE(r.ok(), !mime.isEmpty());
    if (r) {
        QCOMPARE(r->mime, mime);
        QCOMPARE(r->data, bytes);
    } else {
        QCOMPARE(r.error().code, shoehorn::ErrorCode::ImageInvalid);
    }
    // From a file, the message names the file.
    QTemporaryDir dir;
    QFile file(dir.filePath("holiday.png"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    auto fromFile = VisionController::imageFromFile(file.fileName());
    QCOMPARE(fromFile.ok(), !mime.isEmpty());
    if (!fromFile)
        QVERIFY2(fromFile.error().detail.find("holiday.png") != std::string::npos, fromFile.error().detail.c_str());
}

void TestVisionController::pairedAutomaticallyAndAnswers()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    QVERIFY(loadAndSee(cApp, TestFixtures::instance().tinyVision(), true));
    QCOMPARE(cApp.vision()->vision().precision, QString("F16"));
    QSignalSpy finished(&c, &ChatController::answerFinished);
    // What the answer being written says it waits for, as it changes.
    QStringList notes;
    connect(c.chatModel(), &QAbstractItemModel::dataChanged, this, [&](const QModelIndex &i) {
        const QString n = i.data(ChatModel::NoteRole).toString();
        if (!n.isEmpty() && (notes.isEmpty() || notes.last() != n))
            notes << n;
    });
    QVERIFY(c.send(QStringLiteral("What is it?"), {picture(1), picture(2)}));
    QVERIFY(finished.wait(30000));
    QVERIFY2(notes.contains("Looking at image 1 of 2…") && notes.contains("Looking at image 2 of 2…"),
             qPrintable(notes.join(" | ")));
    const auto stats = finished.at(0).at(0).value<shoehorn::GenerationStats>();
    QVERIFY2(stats.promptTokens > 20, qPrintable(QString::number(stats.promptTokens))); // two images' tokens
    // The question and its images are in the chat and in the store.
    QCOMPARE(c.chatModel()->message(0).images.size(), 2);
    QVERIFY(c.chatModel()->message(0).images[1] == picture(2));
    const auto stored = cApp.history()->store()->messages(c.currentConversation());
    QCOMPARE(stored[0].images.size(), 2);
    QVERIFY(stored[0].images[0] == picture(1));
    // An image alone (no text) is a message too.
    finished.clear();
    QVERIFY(c.send(QString(), {picture(3)}));
    QVERIFY(finished.wait(30000));
}

void TestVisionController::choiceIsRememberedAndAppliedWithoutReload()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    const QString model = TestFixtures::instance().tinyVision();
    QVERIFY(loadAndSee(cApp, model, true));
    QSignalSpy loads(&lm, &LoadedModel::modelLoaded);
    QSignalSpy vision(cApp.vision(), &VisionController::visionChanged);
    const QString f32 = TestFixtures::instance().projector("F32");
    cApp.vision()->choose(f32, false);
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->vision().path == f32 && cApp.vision()->canSeeImages(), 30000);
    QCOMPARE(cApp.vision()->vision().precision, QString("F32"));
    QCOMPARE(cApp.vision()->vision().offload, false);
    QCOMPARE(loads.count(), 0); // the model stayed loaded
    const std::optional<ModelSettings> stored = ModelSettingsStore::load(model);
    QVERIFY(stored);
    QCOMPARE(stored->projector, f32);
    QCOMPARE(stored->projectorOffload, false);
    // None: images are refused from now on, and after the next load too.
    cApp.vision()->choose(ModelSettings::kNoProjector, true);
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->vision().path.isEmpty(), 30000);
    QVERIFY(!cApp.vision()->canSeeImages());
    QVERIFY(!c.send(QStringLiteral("look"), {picture()}));
    QCOMPARE(c.chatModel()->rowCount(), 0);
    lm.reload();
    QTRY_COMPARE_WITH_TIMEOUT(loads.count(), 1, 30000);
    QTest::qWait(200);
    QVERIFY(!cApp.vision()->canSeeImages());
    cApp.vision()->choose(QString(), true); // automatic again
}

void TestVisionController::modelWithoutProjectorRefusesImages()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    QVERIFY(loadAndSee(cApp, TestFixtures::instance().tinyApi(), false));
    QVERIFY(!cApp.vision()->canSeeImages());
    QVERIFY(cApp.vision()->vision().path.isEmpty());
    QVERIFY(!c.send(QStringLiteral("look at this"), {picture()}));
    QCOMPARE(c.chatModel()->rowCount(), 0); // nothing half-sent
    QVERIFY(c.send(QStringLiteral("just text")));
    // A projector for another model is refused with the reason, and the model keeps working.
    cApp.vision()->choose(TestFixtures::instance().projectorMismatch(), true);
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->vision().error.code == shoehorn::ErrorCode::ProjectorMismatch, 30000);
    QVERIFY(!cApp.vision()->canSeeImages());
}

// The app's local API serves the same projector: an OpenAI image_url part adds the picture's
// tokens to the prompt.
void TestVisionController::theLocalApiSeesImagesToo()
{
    AppCore cApp;
    QVERIFY(loadAndSee(cApp, TestFixtures::instance().tinyVision(), true));
    ApiConfig config;
    config.port = 0;
    config.key = QStringLiteral("sk-test-key");
    cApp.api()->setConfig(config);
    cApp.api()->start();
    QTRY_VERIFY_WITH_TIMEOUT(cApp.api()->state() == ApiController::State::On, 30000);
    // One projector and one context, for the chat and the API.
    QCOMPARE(shoehorn::liveEngineObjects().projectors, 1);
    QCOMPARE(shoehorn::liveEngineObjects().serverContexts, 1);
    auto ask = [&](const QJsonArray &content, int *promptTokens) {
        QNetworkAccessManager net;
        QNetworkRequest r(QUrl(cApp.api()->baseUrl() + "/v1/chat/completions"));
        r.setRawHeader("Authorization", "Bearer sk-test-key");
        r.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        const QJsonObject body{{"max_tokens", 2},
                               {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", content}}}}};
        QNetworkReply *reply = net.post(r, QJsonDocument(body).toJson());
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!done.wait(30000))
            return 0;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        *promptTokens = QJsonDocument::fromJson(reply->readAll()).object()["usage"].toObject()["prompt_tokens"].toInt();
        reply->deleteLater();
        return status;
    };
    const QJsonObject text{{"type", "text"}, {"text", "What is it?"}};
    const QJsonObject image{
        {"type", "image_url"},
        {"image_url", QJsonObject{{"url", "data:image/bmp;base64," +
                                              QString::fromLatin1(TestFixtures::bmpImage(96, 64).toBase64())}}}};
    int plain = 0, seen = 0;
    QCOMPARE(ask({text}, &plain), 200);
    QCOMPARE(ask({image, text}, &seen), 200);
    QVERIFY2(seen >= plain + 12, qPrintable(QStringLiteral("%1 vs %2").arg(seen).arg(plain)));
    // Another projector starts the loop again: the API, still on, serves pictures on the new one.
    const QString f32 = TestFixtures::instance().projector("F32");
    cApp.vision()->choose(f32, false);
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->vision().path == f32 && cApp.vision()->canSeeImages(), 30000);
    QCOMPARE(cApp.api()->state(), ApiController::State::On);
    int again = 0;
    QCOMPARE(ask({image, text}, &again), 200);
    QCOMPARE(again, seen);
    QCOMPARE(shoehorn::liveEngineObjects().serverContexts, 1);
    cApp.vision()->choose(QString(), true); // automatic again, for the other tests
    cApp.api()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(cApp.api()->state() == ApiController::State::Off, 30000);
}

// An mmproj that aborts llama.cpp (a BF16 patch convolution) is stopped by the helper's check,
// both for the plan (its facts) and for loading; the window's process goes on.
void TestVisionController::brokenProjectorIsCheckedFirst()
{
    QTemporaryDir dir;
    auto p = shoehorn::fixtures::tinyProjector();
    p.type = "bf16";
    p.bf16Convolution = true;
    const QString bad = dir.filePath("mmproj-broken-BF16.gguf");
    QVERIFY(shoehorn::fixtures::writeProjector(p, bad.toStdString()).empty());
    AppCore cApp;
    QVERIFY(loadAndSee(cApp, TestFixtures::instance().tinyVision(), true));
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->facts(TestFixtures::instance().tinyVision(), bad).has_value(), 20000);
    QCOMPARE(cApp.vision()->facts(TestFixtures::instance().tinyVision(), bad)->cpuBytes, quint64(0)); // no dry run of it
    cApp.vision()->choose(bad, false);
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->vision().path == bad && cApp.vision()->vision().error, 30000);
    QCOMPARE(cApp.vision()->vision().error.code, shoehorn::ErrorCode::FileCheckFailed);
    QVERIFY(!cApp.vision()->canSeeImages());
    cApp.vision()->choose(QString(), true); // automatic again: the good one beside the model
    QTRY_VERIFY_WITH_TIMEOUT(cApp.vision()->canSeeImages(), 30000);
}

QTEST_GUILESS_MAIN(TestVisionController)
#include "tst_visioncontroller.moc"
