// The first window, driven as a person would: drop a model, type, press Enter.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "mainwindow.h"
#include "../app/fakeworker.h"
#include "../app/smallchat.h"
#include "messageinput.h"
#include "chatview.h"
#include "chatstore.h"
#include "conversationpanel.h"
#include "elidedlabel.h"
#include "modellibrary.h"
#include "offloadcontroller.h"
#include "smallscreen.h"
#include "stallprobe.h"
#include "singleinstance.h"
#include "testfixtures.h"

#include <QLabel>
#include <QProgressBar>
#include <QDir>
#include <QFileInfo>
#include <QMimeData>
#include <QPushButton>
#include <QAbstractButton>
#include <QDockWidget>
#include <QScrollBar>
#include <QScrollArea>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QSettings>
#include <QStandardPaths>
#include <QUuid>
#include <QStatusBar>
#include <QtTest>

class TestMainWindow : public QObject
{
    Q_OBJECT
private:
    static void drop(QWidget *w, const QString &path);
    static void configure(LoadedModel &c);

private slots:
    void init();
    void initTestCase();
    void emptyStateTeaches();
    void statusMessageCoversTheStrip();
    void dropModelThenChat();
    void dropBrokenFileShowsError();
    void openThroughFileDialogSeam();
    void escapeStops();
    void secondLaunchHandsOverFiles();
    void rememberGeometry();
    void importPresetsFromIni();
    void stuckAnswerOffersToQuit();
    void loadStartedElsewhereNamesTheFile();
    void fitsSmallScreen();
    void panelsNeverScrollSideways();
    void modelLoadDoesNotStallTheWindow();
};

// A real load (tiny fixture, the real worker) from a running event loop, as a click starts it: the
// GUI thread is never busy longer than a frame (16 ms) from the click until the settings written
// after it, in the process's first load (Qt's first paints of the load strip) and in a second
// one. The probe leaves out the time other programs kept the thread off the CPU (two cores,
// ctest running tests side by side). Broken once: 20 ms of the GUI thread's CPU time in
// MainWindow::onModelLoaded fails it (23 ms); so does the load strip's progress bar asking for
// more width than the window had (the window widened by 31 px and was painted anew inside the
// click: 13-18 ms, the size check fails every time).
void TestMainWindow::modelLoadDoesNotStallTheWindow()
{
    for (int load = 1; load <= 2; ++load) {
        AppCore cApp;
        LoadedModel &lm = *cApp.model();
        configureSmallChat(lm, 8, 0);
        MainWindow w(cApp.windowParts());
        w.setErrorPresenter([](const QString &, const QString &) {});
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        StallProbe::spin(500); // the window's own first work (model list, hardware probe) done
        const QSize before = w.size();
        StallProbe probe;
        probe.start();
        QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
        const QString model = TestFixtures::instance().tinyApi();
        QTimer::singleShot(20, &w, [&w, model] { w.openModel(model); });
        QElapsedTimer sinceProbe;
        sinceProbe.start();
        while (loaded.isEmpty() && loaded.wait(20000)) {
        }
        QCOMPARE(loaded.count(), 1);
        const qint64 loadedAt = sinceProbe.elapsed();
        StallProbe::spin(400); // what the load's end sets off: the chat page, the gauges, the writes
        // Where the stall was (seen once: 90 ms in a full ctest run, cause not found): before the
        // click at 20 ms, during the load, or after it ended.
        qInfo("load %d: longest GUI-thread stall %lld ms, ending %lld ms after the start; clicked at 20 ms, "
              "loaded at %lld ms (%lld ms on the wall clock)",
              load, probe.worstMs(), probe.worstEndMs(), loadedAt, probe.worstWallMs());
        QCOMPARE(w.size(), before); // a load does not resize the window
        QVERIFY2(probe.worstMs() <= StallProbe::kFrameMs, qPrintable(QString::number(probe.worstMs()) + " ms"));
    }
}

// A budget laptop's screen: the window is no larger, and the message box with Send and the whole
// offload panel with its buttons show without scrolling (SmallScreen::check).
void TestMainWindow::fitsSmallScreen()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    MainWindow w(cApp.windowParts());
    const QString problem = SmallScreen::check(w, *cApp.model());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

// The docks keep the width their panels need: a window made narrow and wide again left the
// offload panel at the narrow width, cut, with a sideways scroll bar. Its buttons stay where they
// are when Details opens (they were under it).
void TestMainWindow::panelsNeverScrollSideways()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    MainWindow w(cApp.windowParts());
    w.setErrorPresenter([](const QString &, const QString &) {});
    w.fitInto(QRect(0, 0, 1400, 860));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(cApp.model(), &LoadedModel::modelLoaded);
    cApp.model()->openModel(TestFixtures::instance().qwen3_30b());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QTRY_VERIFY(w.offloadPanel()->hasModelInfo());
    const auto check = [&](const char *when) {
        for (QDockWidget *panel : {static_cast<QDockWidget *>(w.offloadPanel()), static_cast<QDockWidget *>(w.conversationPanel())}) {
            auto *scroll = panel->findChild<QScrollArea *>();
            const int need = scroll->widget()->minimumSizeHint().width();
            QVERIFY2(scroll->viewport()->width() >= need && !scroll->horizontalScrollBar()->isVisible(),
                     qPrintable(QString("%1, %2: %3 px shown of %4").arg(when, panel->objectName())
                                    .arg(scroll->viewport()->width()).arg(need)));
        }
    };
    for (const QSize size : {QSize(1400, 860), QSize(900, 600), QSize(1400, 860)}) {
        w.resize(size);
        QTest::qWait(50);
        w.conversationPanel()->raise();
        QTest::qWait(20);
        check(qPrintable(QString("%1x%2 conversation").arg(size.width()).arg(size.height())));
        w.offloadPanel()->raise();
        QTest::qWait(20);
        check(qPrintable(QString("%1x%2 offload").arg(size.width()).arg(size.height())));
    }
    // Half of a 1920 screen still holds the window with both docks (a long file name in the load
    // strip or a wide hint on the empty page made it wider).
    QVERIFY2(w.minimumSizeHint().width() <= 960, qPrintable(QString::number(w.minimumSizeHint().width())));
    // Copy says so in the status bar (the clipboard shows nothing).
    QTest::mouseClick(w.offloadPanel()->findChild<QPushButton *>("copyCommandButton"), Qt::LeftButton);
    QCOMPARE(w.statusBar()->currentMessage(), QString("The llama-server command is on the clipboard."));
    emit w.chatView()->copied("The message is on the clipboard.");
    QCOMPARE(w.statusBar()->currentMessage(), QString("The message is on the clipboard."));
    auto *fit = w.offloadPanel()->findChild<QPushButton *>("autoFitButton");
    const QPoint before = fit->mapTo(&w, QPoint(0, 0));
    QTest::mouseClick(w.offloadPanel()->findChild<QAbstractButton *>("planDetailsButton"), Qt::LeftButton);
    QTest::qWait(50);
    QCOMPARE(fit->mapTo(&w, QPoint(0, 0)), before);
}

void TestMainWindow::loadStartedElsewhereNamesTheFile()
{
    // The offload panel's Load and a reload after tuning start the load through the controller,
    // not the window: the loading strip and a failure still name the file.
    auto *worker = new FakeWorker;
    worker->loadMs = 3000;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    QString shownText;
    w.setErrorPresenter([&](const QString &, const QString &text) { shownText = text; });
    w.show();
    auto *label = w.findChild<ElidedLabel *>("loadLabel");
    QVERIFY(label);
    lm.openModel("/models/from-the-panel.gguf");
    QTRY_VERIFY2(label->fullText().contains("from-the-panel.gguf") && label->fullText().contains(" s left"),
                 qPrintable(label->fullText()));
    lm.cancelLoad();
    QTRY_COMPARE(lm.state(), LoadedModel::State::NoModel);
    worker->loadMs = 0;
    lm.openModel("/models/bad-download.gguf");
    QTRY_VERIFY(!shownText.isEmpty());
    QVERIFY2(shownText.startsWith("bad-download.gguf could not be opened."), qPrintable(shownText));
}

void TestMainWindow::stuckAnswerOffersToQuit()
{
    // An answer stuck where Stop is not seen (a spinning chat template): Esc does not just do
    // nothing; after a grace time the window says so and offers to quit.
    auto *worker = new FakeWorker;
    worker->stuck = true;
    worker->tokens = 500; // 5 s, then it ends by itself and the test can clean up
    worker->tokenMs = 10;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    QStringList asked;
    w.setQuitAsker([&](const QString &text, std::function<void(bool)> done) {
        asked << text;
        done(false); // "No": keep waiting
    });
    w.show();
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/fake.gguf");
    QTRY_COMPARE(loaded.count(), 1);
    auto *input = w.findChild<MessageInput *>("messageInput");
    input->setPlainText("spin");
    QTest::keyClick(input, Qt::Key_Return);
    QTRY_VERIFY(!c.chatModel()->message(1).content.isEmpty());
    QTest::keyClick(&w, Qt::Key_Escape);
    QTest::qWait(MainWindow::kStopGraceMs / 2);
    QVERIFY(asked.isEmpty()); // not at once: Stop usually works within milliseconds
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, MainWindow::kStopGraceMs + 1000);
    QVERIFY2(asked.first().contains("does not stop") && asked.first().contains("Quit"), qPrintable(asked.first()));
    QCOMPARE(lm.state(), LoadedModel::State::Generating);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
}

void TestMainWindow::init()
{
    // Per-model settings are remembered; every test starts from none.
    startFresh();
}

void TestMainWindow::initTestCase()
{
    startFresh();
}

void TestMainWindow::configure(LoadedModel &c)
{
    configureSmallChat(c, 64, 11);
}

void TestMainWindow::drop(QWidget *w, const QString &path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropEvent(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w, &dropEvent);
}

void TestMainWindow::emptyStateTeaches()
{
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    w.show();
    auto *hint = w.findChild<QLabel *>("emptyHint");
    QVERIFY(hint);
    QVERIFY(hint->isVisible());
    QVERIFY(hint->text().contains(".gguf"));
    auto *send = w.findChild<QPushButton *>("sendButton");
    QVERIFY(!send->isEnabled());
    QVERIFY(!w.findChild<QProgressBar *>("contextBar")->isVisible()); // no model, no context to show
}

// A message shown before the window is (a model opened from the command line that loads at once,
// with a note) was drawn over the model's name: QStatusBar hides its widgets only when they are
// visible at that moment. The strip follows the message itself.
void TestMainWindow::statusMessageCoversTheStrip()
{
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    w.statusBar()->showMessage(QStringLiteral("shown before the window"), 5000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto *label = w.findChild<QLabel *>("modelLabel");
    QVERIFY(!label->isVisible());
    w.statusBar()->clearMessage();
    QVERIFY(label->isVisible());
    w.statusBar()->showMessage(QStringLiteral("again"), 5000);
    QVERIFY(!label->isVisible());
}

void TestMainWindow::dropModelThenChat()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm);
    MainWindow w(cApp.windowParts());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    drop(&w, TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    auto *label = w.findChild<QLabel *>("modelLabel");
    QVERIFY(label->text().contains("Tiny Qwen3 MoE"));

    auto *input = w.findChild<MessageInput *>("messageInput");
    QVERIFY(input && input->isVisible());
    QTest::keyClicks(input, "Hello");
    QTest::keyClick(input, Qt::Key_Return, Qt::ShiftModifier); // a new line, not a send
    QTest::keyClicks(input, "world");
    QCOMPARE(c.chatModel()->rowCount(), 0);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    QTest::keyClick(input, Qt::Key_Return);
    QCOMPARE(input->toPlainText(), QString());
    QCOMPARE(c.chatModel()->rowCount(), 2);
    QCOMPARE(c.chatModel()->message(0).content, QString("Hello\nworld"));
    QTRY_VERIFY_WITH_TIMEOUT(!c.chatModel()->message(1).content.isEmpty(), 20000);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    // The streamed text is on screen.
    auto *view = w.findChild<QTextBrowser *>();
    QVERIFY(view->toPlainText().contains(c.chatModel()->message(1).content.left(10)));
    const auto stats = finished.first().first().value<shoehorn::GenerationStats>();
    QCOMPARE(w.findChild<QLabel *>("statsLabel")->text(),
             QString("Last answer: %1 tok/s").arg(stats.generationTokensPerSecond, 0, 'f', 1));
    // The status strip shows how full the context is, on its bar (not twice).
    auto *bar = w.findChild<QProgressBar *>("contextBar");
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->value(), stats.contextUsed);
    QCOMPARE(bar->maximum(), stats.contextSize);
}

void TestMainWindow::dropBrokenFileShowsError()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    QString shownTitle, shownText;
    w.setErrorPresenter([&](const QString &title, const QString &text) {
        shownTitle = title;
        shownText = text;
    });
    const QString bad = TestFixtures::instance().dir() + "/truncated.gguf";
    QFile in(TestFixtures::instance().tinyLlama());
    QVERIFY(in.open(QIODevice::ReadOnly));
    QFile out(bad);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(in.read(5000));
    out.close();
    drop(&w, bad);
    QTRY_VERIFY_WITH_TIMEOUT(!shownText.isEmpty(), 10000);
    QCOMPARE(shownTitle, QString("Cannot open this model"));
    QVERIFY(shownText.contains("incomplete"));
    QCOMPARE(lm.state(), LoadedModel::State::NoModel);
}

void TestMainWindow::openThroughFileDialogSeam()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm);
    MainWindow w(cApp.windowParts());
    w.setFileChooser([](std::function<void(const QString &)> done) { done(TestFixtures::instance().tinyLlama()); });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    auto *open = w.findChild<QPushButton *>("openModelButton");
    QTest::mouseClick(open, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(lm.model().architecture, QString("llama"));
}

void TestMainWindow::escapeStops()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm);
    auto o = c.generationOptions();
    o.maxTokens = -1;
    lm.setGenerationOptions(o);
    MainWindow w(cApp.windowParts());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    w.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QSignalSpy finished(&c, &ChatController::answerFinished);
    auto *input = w.findChild<MessageInput *>("messageInput");
    input->setPlainText("tell me everything");
    QTest::keyClick(input, Qt::Key_Return);
    QCOMPARE(w.findChild<QPushButton *>("sendButton")->text(), QString("Stop"));
    // Enter while the answer is written: the answer goes on and the typed follow-up stays.
    input->setPlainText("and then?");
    QTest::keyClick(input, Qt::Key_Return);
    QCOMPARE(lm.state(), LoadedModel::State::Generating);
    QCOMPARE(input->toPlainText(), QString("and then?"));
    QCOMPARE(finished.count(), 0);
    QTest::keyClick(&w, Qt::Key_Escape);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(lm.state(), LoadedModel::State::Ready);
    QCOMPARE(w.findChild<QPushButton *>("sendButton")->text(), QString("Send"));
    QCOMPARE(input->toPlainText(), QString("and then?")); // nothing typed is lost
}

void TestMainWindow::secondLaunchHandsOverFiles()
{
    // Wired as in main(): the running window listens; a second launch forwards its files.
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm);
    MainWindow w(cApp.windowParts());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString name = "shoehorn-test-" + QUuid::createUuid().toString(QUuid::WithoutBraces);
    SingleInstance running(name);
    QVERIFY(running.listen());
    connect(&running, &SingleInstance::filesReceived, &w, &MainWindow::openFiles);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    w.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);

    const QStringList files{TestFixtures::instance().tinyMoe(), TestFixtures::instance().tinyThinking()};
    bool forwarded = false;
    QThread *t = QThread::create([&] { forwarded = SingleInstance(name).forwardToRunning(files, 3000); });
    t->start();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 20000);
    QVERIFY(t->wait(5000));
    delete t;
    QVERIFY(forwarded);
    QCOMPARE(lm.model().path, files[0]);
    QCOMPARE(lm.model().architecture, QString("qwen3moe"));
    // The second file is offered in the model browser, not loaded.
    ModelLibrary *lib = w.modelLibrary();
    const int offered = lib->indexOf(files[1]);
    QVERIFY(offered >= 0);
    QVERIFY(lib->data(lib->index(offered), ModelLibrary::OfferedRole).toBool());
}

void TestMainWindow::rememberGeometry()
{
    AppCore cApp;
    {
        MainWindow w(cApp.windowParts());
        w.resize(1111, 777);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.close();
    }
    MainWindow again(cApp.windowParts());
    QCOMPARE(again.size(), QSize(1111, 777));
}

void TestMainWindow::importPresetsFromIni()
{
    // A preset file like the RTX 3060 guide's, pointing at a fixture; one unknown key.
    const QString ini = TestFixtures::instance().dir() + "/models.ini";
    QFile f(ini);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("version = 1\n[*]\nc = 1024\nflash-attn = on\ncontext-shift = true\n[Tiny]\n"
                           "model = %1\nn-cpu-moe = 2\ntemp = 0.6\n[NoFile]\nc = 8\n")
                .arg(TestFixtures::instance().tinyMoe())
                .toUtf8());
    f.close();
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    QString title, text;
    w.setInfoPresenter([&](const QString &t, const QString &x) {
        title = t;
        text = x;
    });
    w.setPresetChooser([&](std::function<void(const QString &)> done) { done(ini); });
    w.importPresets();
    QCOMPARE(title, QString("Presets imported"));
    QVERIFY2(text.contains("1 model"), qPrintable(text));
    QVERIFY(text.contains("context-shift")); // reported, not silently dropped
    QVERIFY(text.contains("without a model file"));
    // The model is offered, and opening it applies the preset.
    QVERIFY(w.modelLibrary()->indexOf(TestFixtures::instance().tinyMoe()) >= 0);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    w.openModel(TestFixtures::instance().tinyMoe());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    QCOMPARE(lm.model().contextSize, 1024);
    QCOMPARE(lm.loadSettings().cpuMoeLayers, 2);
    QCOMPARE(c.generationOptions().sampling.temperature, 0.6f);
    // A file that is not a preset gets a clear error.
    QString error;
    w.setErrorPresenter([&](const QString &, const QString &x) { error = x; });
    w.importPresetFile(TestFixtures::instance().tinyMoe());
    QVERIFY(error.contains("not a llama-server preset"));
    // One that cannot be read says so in ErrorText's words, with the system's reason.
    w.importPresetFile(QDir::temp().filePath("no-such-presets.ini"));
    QVERIFY2(error.startsWith("The file cannot be read: check that it is yours to read") &&
                 error.contains("Details: No such file"), qPrintable(error));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
