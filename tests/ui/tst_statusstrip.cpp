// The status strip's activity line: it says what the model is busy with (reading the prompt,
// writing, auto-tune) and is cleared when the model is ready again without an answer's figures.
#include "appcore.h"
#include "chatcontroller.h"
#include "inferencesession.h"
#include "loadedmodel.h"
#include "statusstrip.h"
#include "testsettings.h"
#include "../app/fakeworker.h"

#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

class TestStatusStrip : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void busyLineGoesWhenTheModelIsReady();
};

// "The model is busy: auto-tune is running." stayed after the tune, "Reading the prompt…" after an
// answer that failed (found using the window); an answer that ends keeps its figures.
void TestStatusStrip::busyLineGoesWhenTheModelIsReady()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    StatusStrip strip(&lm, cApp.chat());
    auto *stats = strip.findChild<QLabel *>("statsLabel");
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/a.gguf");
    QTRY_COMPARE(loaded.count(), 1);

    worker->tuneMs = 200;
    QVERIFY(cApp.session()->startTuning({}));
    QTRY_VERIFY(stats->text().contains("auto-tune is running"));
    QTRY_COMPARE_WITH_TIMEOUT(lm.state(), LoadedModel::State::Ready, 5000);
    QCOMPARE(stats->text(), QString());

    worker->tokens = 3;
    QVERIFY(cApp.chat()->send("hello"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QTRY_VERIFY2(stats->text().startsWith("Last answer: "), qPrintable(stats->text()));

    worker->failAfter = 0;
    QVERIFY(cApp.chat()->send("again"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QCOMPARE(stats->text(), QString());
}

QTEST_MAIN(TestStatusStrip)
#include "tst_statusstrip.moc"
