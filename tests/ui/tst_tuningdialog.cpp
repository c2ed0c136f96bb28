// The auto-tune results view, driven for real on the tiny MoE: run, busy model, table, chart,
// story, Apply best, and the stored results coming back.
#include "appsettings.h"
#include "appcore.h"
#include "tuningcontroller.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "testfixtures.h"
#include "tuningdialog.h"
#include "hardwaremonitor.h"
#include "tuningstore.h"

#include <QBarSet>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QtTest>

class TestTuningDialog : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void runShowApply();
};

void TestTuningDialog::init()
{
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
}

// The best row and bar highlighted, and the story: a row per step that changes the configuration.
static void checkBestAndStory(TuningDialog &dialog)
{
    const TuneReport &r = dialog.report();
    const int rows = int(r.result.measurements.size());
    QVERIFY(dialog.resultsTable()->item(r.result.best, 0)->font().bold());
    QVERIFY(dialog.resultsTable()->item(r.result.best, 3)->text().contains("best"));
    const auto sets = dialog.barSets();
    QCOMPARE(sets.size(), 2);
    QCOMPARE(sets[0]->count(), rows);
    QVERIFY(sets[1]->isBarSelected(r.result.best)); // the best bar is highlighted
    // The story: a row per step that changes the configuration here (no GPU on this machine: no
    // "+ GPU layers" row repeating the baseline), ending with the best found.
    QTableWidget *story = dialog.storyTable();
    QCOMPARE(story->rowCount(), int(r.story.size()));
    QVERIFY(story->rowCount() >= 2);
    QCOMPARE(story->item(0, 3)->text(), QString("×1.00"));
    for (int row = 1; row < story->rowCount(); ++row)
        QVERIFY2(story->item(row, 1)->text() != story->item(row - 1, 1)->text(), qPrintable(story->item(row, 0)->text()));
    const shoehorn::TuneCandidate &bestTrial = r.result.measurements[size_t(r.result.best)].candidate;
    if (!bestTrial.chatPath) // a speculation trial is measured on the chat path: not a step of the story
        QCOMPARE(story->item(story->rowCount() - 1, 1)->text(), QString::fromStdString(bestTrial.label));
}

void TestTuningDialog::runShowApply()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    auto ls = lm.loadSettings();
    ls.gpuLayers = 0;
    lm.setLoadSettings(ls);
    auto cs = lm.contextSettings();
    cs.contextSize = 512;
    cs.threads = 1;
    cs.flashAttention = shoehorn::FlashAttention::Off;
    lm.setContextSettings(cs);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);

    TuningDialog dialog(&lm, cApp.tuning());
    dialog.show();
    QSignalSpy finished(cApp.tuning(), &TuningController::finished);
    QTest::mouseClick(dialog.findChild<QPushButton *>("runTuneButton"), Qt::LeftButton);
    QCOMPARE(lm.state(), LoadedModel::State::Tuning);
    QVERIFY(!c.send("hello")); // the model is busy
    QVERIFY(dialog.findChild<QPushButton *>("cancelTuneButton")->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(lm.state(), LoadedModel::State::Ready);

    const TuneReport &r = dialog.report();
    QVERIFY(r.result.best >= 0);
    const int rows = int(r.result.measurements.size());
    QVERIFY(rows >= 2);
    QCOMPARE(dialog.resultsTable()->rowCount(), rows);
    int chatPathRows = 0; // speculation is measured on the chat path: generation only
    for (int i = 0; i < rows; ++i)
        if (r.result.measurements[size_t(i)].candidate.chatPath) {
            ++chatPathRows;
            QCOMPARE(dialog.resultsTable()->item(i, 1)->text(), QString("—"));
        }
    QVERIFY(chatPathRows > 0);
    checkBestAndStory(dialog);
    if (QTest::currentTestFailed())
        return;

    // Apply best: the controller takes the settings and reloads with them.
    const auto best = r.result.measurements[size_t(r.result.best)].candidate.settings;
    QSignalSpy reloaded(&lm, &LoadedModel::modelLoaded);
    QTest::mouseClick(dialog.findChild<QPushButton *>("applyBestButton"), Qt::LeftButton);
    QCOMPARE(lm.contextSettings().threads, best.context.threads);
    QCOMPARE(lm.contextSettings().ubatchSize, best.context.ubatchSize);
    QCOMPARE(lm.contextSettings().flashAttention, best.context.flashAttention);
    QTRY_COMPARE_WITH_TIMEOUT(reloaded.count(), 1, 20000);
    QVERIFY(c.send("still chatting?"));

    // A new dialog shows the stored results of this model on this machine.
    TuningDialog again(&lm, cApp.tuning());
    QCOMPARE(again.resultsTable()->rowCount(), rows);

    // A trial that did not fit says so (the typed error's kind, then llama.cpp's words), also
    // from the stored report.
    TuneReport stored = r;
    shoehorn::TuneMeasurement oom = stored.result.measurements.front();
    oom.ok = false;
    oom.error = {shoehorn::ErrorCode::OutOfMemory, "Vulkan0 buffer of 5.00 GiB"};
    stored.result.measurements.push_back(oom);
    TuningStore::save(lm.model().path, cApp.hardware()->machineId(), stored);
    TuningDialog failed(&lm, cApp.tuning());
    QCOMPARE(failed.resultsTable()->rowCount(), rows + 1);
    QCOMPARE(failed.resultsTable()->item(rows, 3)->text(), QString("does not fit: Vulkan0 buffer of 5.00 GiB"));
}

QTEST_MAIN(TestTuningDialog)
#include "tst_tuningdialog.moc"
