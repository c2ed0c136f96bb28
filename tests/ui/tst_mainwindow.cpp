// The first window, driven as a person would: drop a model, type, press Enter.
#include "appsettings.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "mainwindow.h"
#include "../app/fakeworker.h"
#include "../app/smallchat.h"
#include "messageinput.h"
#include "chatlist.h"
#include "chatview.h"
#include "chatstore.h"
#include "conversationlist.h"
#include "conversationpanel.h"
#include "elidedlabel.h"
#include "modelbrowser.h"
#include "modellibrary.h"
#include "offloadcontroller.h"
#include "smallscreen.h"
#include "stallprobe.h"
#include "singleinstance.h"
#include "testfixtures.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QProgressBar>
#include <QLineEdit>
#include <QListView>
#include <QTableView>
#include <QDir>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QFileInfo>
#include <QMimeData>
#include <QMenu>
#include <QPushButton>
#include <QAbstractButton>
#include <QDockWidget>
#include <QScrollBar>
#include <QScrollArea>
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
    // Two stored chats: "Planning the GPU" and "Recipes", whose answer was cut off by a kill.
    struct TwoChats {
        qint64 planning = 0;
        qint64 recipes = 0;
    };
    static TwoChats storeTwoChats(ChatStore *store);
    static void clickChat(ChatList *chats, qint64 id);
    // The id of the one chat highlighted, 0 for none highlighted, -n for n highlighted.
    static qint64 highlightedChat(ChatList *chats);

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
    void browserOpensRecentModel();
    void browserSeesFilesGoneWhenTheWindowIsActiveAgain();
    void importPresetsFromIni();
    void chatListSearchRenameDelete();
    void newChatHighlightsNothing();
    void brokenHistoryIsReported();
    void stuckAnswerOffersToQuit();
    void loadStartedElsewhereNamesTheFile();
    void modelsListShowsTheLoad();
    void modelsListSelectsThePanelsModel();
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
        while (loaded.isEmpty() && loaded.wait(20000)) {
        }
        QCOMPARE(loaded.count(), 1);
        StallProbe::spin(400); // what the load's end sets off: the chat page, the gauges, the writes
        qInfo("load %d: longest GUI-thread stall %lld ms (%lld ms on the wall clock)", load, probe.worstMs(),
              probe.worstWallMs());
        QCOMPARE(w.size(), before); // a load does not resize the window
        QVERIFY2(probe.worstMs() <= StallProbe::kFrameMs, qPrintable(QString::number(probe.worstMs()) + " ms"));
    }
}

// The Models list shows a model as soon as it is being opened (from anywhere: here the
// controller, as the command line and the offload panel do), with its progress.
void TestMainWindow::modelsListShowsTheLoad()
{
    auto *worker = new FakeWorker;
    worker->loadMs = 1500;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    w.setErrorPresenter([](const QString &, const QString &) {});
    w.show();
    ModelLibrary *lib = w.modelLibrary();
    QAbstractItemModelTester tester(lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/opening.gguf");
    QTRY_COMPARE(lib->pathAt(0), QString("/models/opening.gguf"));
    QVERIFY(lib->data(lib->index(0), ModelLibrary::LoadingRole).isValid());
    QTRY_VERIFY(lib->data(lib->index(0), ModelLibrary::LoadingRole).toDouble() > 0.2);
    QVERIFY2(lib->data(lib->index(0), Qt::DisplayRole).toString().startsWith("opening.gguf — loading "),
             qPrintable(lib->data(lib->index(0), Qt::DisplayRole).toString()));
    QCOMPARE(loaded.count(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    QCOMPARE(lib->pathAt(0), QString("/models/opening.gguf"));
    QVERIFY(!lib->data(lib->index(0), ModelLibrary::LoadingRole).isValid());
    // A load that fails takes its row away again.
    worker->loadMs = 300;
    lm.openModel("/models/bad-one.gguf");
    QTRY_COMPARE(lib->pathAt(0), QString("/models/bad-one.gguf"));
    QTRY_COMPARE(lib->indexOf("/models/bad-one.gguf"), -1);
}

// The row selected in the Models list is the model the offload panel plans, whoever changed it:
// a click there, a load started elsewhere (File > Open, a stored chat), a load that failed.
void TestMainWindow::modelsListSelectsThePanelsModel()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    MainWindow w(cApp.windowParts());
    w.setErrorPresenter([](const QString &, const QString &) {});
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ModelLibrary *lib = w.modelLibrary();
    lib->addRecent("/models/first.gguf");
    lib->addRecent("/models/second.gguf");
    w.findChild<ModelBrowser *>()->raise();
    auto *list = w.findChild<QTableView *>("modelList");
    QVERIFY(list);
    const auto selected = [&] {
        const QModelIndexList rows = list->selectionModel()->selectedRows();
        return rows.size() == 1 ? lib->pathAt(rows.front().row()) : QStringLiteral("%1 rows").arg(rows.size());
    };
    QCOMPARE(selected(), QString("0 rows"));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(lib->index(lib->indexOf("/models/first.gguf"))).center());
    QCOMPARE(cApp.offload()->modelPath(), QString("/models/first.gguf"));
    QCOMPARE(selected(), QString("/models/first.gguf"));
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/second.gguf");
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    QTRY_COMPARE(cApp.offload()->modelPath(), QString("/models/second.gguf"));
    QTRY_COMPARE(selected(), QString("/models/second.gguf"));
    // A new file is listed at the top while it loads: the selection follows the panel's model,
    // not the row number it had.
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    lm.openModel("/models/bad-third.gguf");
    QTRY_COMPARE(lib->pathAt(0), QString("/models/bad-third.gguf"));
    QCOMPARE(selected(), cApp.offload()->modelPath());
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
    QTRY_COMPARE(lib->indexOf("/models/bad-third.gguf"), -1);
    QCOMPARE(selected(), lib->indexOf(cApp.offload()->modelPath()) >= 0 ? cApp.offload()->modelPath() : QString("0 rows"));
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

void TestMainWindow::brokenHistoryIsReported()
{
    // A damaged chats.sqlite: the window says it was moved aside and a new one started.
    {
        QFile f(ChatStore::defaultPath());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a database at all");
    }
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    QStringList shown;
    w.setErrorPresenter([&](const QString &title, const QString &text) { shown << title + ": " + text; });
    w.show();
    QTRY_COMPARE(shown.size(), 1);
    QVERIFY2(shown.first().contains("moved") && shown.first().contains(".unreadable-"), qPrintable(shown.first()));
    QVERIFY(cApp.history()->store()); // a new history works
    // A write that fails says what was being saved, in SQLite's words (a typed error in between).
    const qint64 chat = cApp.history()->createConversation("kept", {}, {}, {});
    QVERIFY(chat);
    for (const QString &name : QSqlDatabase::connectionNames())
        if (name.startsWith("chatstore-"))
            QVERIFY(QSqlQuery(QSqlDatabase::database(name)).exec("PRAGMA query_only = ON"));
    QVERIFY(!cApp.chat()->renameConversation(chat, "renamed"));
    QTRY_COMPARE(shown.size(), 2);
    QVERIFY2(shown.last().startsWith("Chat history not saved: Shoehorn could not save the chat's new name in the "
                                     "chat history: attempt to write a readonly database"),
             qPrintable(shown.last()));
    const QDir dir = QFileInfo(ChatStore::defaultPath()).dir();
    for (const QString &f : dir.entryList({"chats.sqlite.unreadable-*"}))
        QFile::remove(dir.filePath(f));
}

void TestMainWindow::init()
{
    // Per-model settings are remembered; every test starts from none.
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
    QFile::remove(ChatStore::defaultPath());
}

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
    QFile::remove(ChatStore::defaultPath());
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

void TestMainWindow::browserOpensRecentModel()
{
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    configure(lm);
    MainWindow w(cApp.windowParts());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QString error;
    w.setErrorPresenter([&](const QString &, const QString &text) { error = text; });
    w.modelLibrary()->addRecent(TestFixtures::instance().tinyLlama());
    w.findChild<ModelBrowser *>()->raise(); // it shares the left side with the chat list
    QCoreApplication::processEvents();
    auto *list = w.findChild<QTableView *>("modelList");
    QVERIFY(list && list->isVisible());
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    const QModelIndex first = list->model()->index(0, 0);
    // A real double-click: press/release, then the double-click event.
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(first).center());
    QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(first).center());
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1 || !error.isEmpty(), 20000);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(lm.model().path, TestFixtures::instance().tinyLlama());
}

// The Models list does not stat its files at each paint (a share that does not answer would hold
// the window): it looks again when the window becomes active (as after deleting a file elsewhere)
// and when its tab is raised over the Chats list.
void TestMainWindow::browserSeesFilesGoneWhenTheWindowIsActiveAgain()
{
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    ModelLibrary *library = w.modelLibrary();
    const QString dir = TestFixtures::instance().dir();
    for (const char *name : {"soon-gone.gguf", "gone-too.gguf"})
        QVERIFY(QFile(dir + "/" + name).open(QIODevice::WriteOnly));
    library->addRecent(dir + "/soon-gone.gguf");
    library->addRecent(dir + "/gone-too.gguf");
    const auto exists = [library](const QString &path) {
        return library->data(library->index(library->indexOf(path)), ModelLibrary::ExistsRole).toBool();
    };
    QTRY_VERIFY(!library->isScanning() && !library->isCheckingFiles());
    QVERIFY(exists(dir + "/soon-gone.gguf"));
    // (that a paint does not look is tst_modellibrary's)
    QVERIFY(QFile::remove(dir + "/soon-gone.gguf"));
    QEvent active(QEvent::ActivationChange); // as Qt sends it to the window the user comes back to
    QCoreApplication::sendEvent(&w, &active);
    QTRY_VERIFY(!exists(dir + "/soon-gone.gguf"));
    // Hidden (closed, or its tab behind the Chats list), a file deleted, shown again.
    auto *browser = w.findChild<ModelBrowser *>();
    browser->hide();
    QTRY_VERIFY(!library->isCheckingFiles());
    QVERIFY(QFile::remove(dir + "/gone-too.gguf"));
    browser->show();
    QTRY_VERIFY(!exists(dir + "/gone-too.gguf"));
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

void TestMainWindow::chatListSearchRenameDelete()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm);
    ChatStore *store = cApp.history()->store();
    const TwoChats two = storeTwoChats(store);
    QVERIFY(two.planning && two.recipes);
    MainWindow w(cApp.windowParts());
    QString askedToLocate;
    w.setLocateChooser([&](const QString &missing, const std::function<void(const QString &)> &done) {
        askedToLocate = missing;
        done(QString()); // the user cancels
    });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ChatList *chats = w.chatList();
    QVERIFY(chats->isVisible()); // chats exist: the list is in front
    QAbstractItemModelTester tester(chats->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(chats->model()->rowCount(), 2);
    // Search finds titles and message text.
    auto *search = chats->findChild<QLineEdit *>("chatSearch");
    QTest::keyClicks(search, "experts");
    QTRY_COMPARE(chats->model()->rowCount(), 1); // searched on the work pool
    search->clear();
    // Click opens a chat; the interrupted answer shows as stopped and stays in the history.
    clickChat(chats, two.recipes);
    QCOMPARE(c.currentConversation(), two.recipes);
    QCOMPARE(askedToLocate, QString("/m.gguf")); // the model moved: the user is offered to locate it
    QCOMPARE(c.chatModel()->rowCount(), 2);
    QVERIFY(w.findChild<QTextBrowser *>()->isVisible()); // the chat page is shown
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Stopped);
    // written a few milliseconds of the event loop's turn at a time: on a slow machine a turn later
    QTRY_VERIFY(w.findChild<QTextBrowser *>()->toPlainText().contains("half an answer"));
    // Rename through the seam, then delete.
    chats->setTitleAsker([](const QString &, std::function<void(const QString &)> done) { done("Soup recipes"); });
    QTest::mouseClick(chats->findChild<QPushButton *>("renameChatButton"), Qt::LeftButton);
    QCOMPARE(store->conversations("Soup recipes").size(), 1);
    // The open chat is the one highlighted, and the one Delete asks about; "No" keeps it.
    const auto selected = [chats] { return highlightedChat(chats); };
    QCOMPARE(selected(), two.recipes);
    QString asked;
    bool answer = false;
    chats->setDeleteAsker([&](const QString &title, std::function<void(bool)> done) {
        asked = title;
        done(answer);
    });
    QTest::mouseClick(chats->findChild<QPushButton *>("deleteChatButton"), Qt::LeftButton);
    QCOMPARE(asked, QString("Soup recipes"));
    QCOMPARE(chats->model()->rowCount(), 2);
    // The right-click menu is about the chat clicked, not the one shown, and opens nothing.
    emit chats->view()->customContextMenuRequested(
        chats->view()->visualRect(chats->model()->index(chats->model()->rowOf(two.planning))).center());
    QMenu *menu = nullptr;
    QTRY_VERIFY((menu = chats->findChild<QMenu *>()));
    QCOMPARE(menu->actions().size(), 2);
    menu->actions().at(1)->trigger(); // Delete…, answered No
    QCOMPARE(asked, QString("Planning the GPU"));
    QCOMPARE(c.currentConversation(), two.recipes);
    menu->close();
    answer = true;
    chats->view()->setFocus();
    QTest::keyClick(chats->view(), Qt::Key_Delete); // the list's own key, as the button
    QTRY_COMPARE(chats->model()->rowCount(), 1); // deleted on the work pool
    // Waiting for it let the closed menu's deactivation through (offscreen: no window is active
    // after a popup closes): the window is active again, as a person's next click makes it.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QCOMPARE(c.chatModel()->rowCount(), 0);
    QCOMPARE(c.currentConversation(), 0);
    QCOMPARE(selected(), qint64(0)); // a new chat: nothing highlighted
}

TestMainWindow::TwoChats TestMainWindow::storeTwoChats(ChatStore *store)
{
    const auto a = store->createConversation("Planning the GPU", "/m.gguf", "");
    const auto b = store->createConversation("Recipes", "/m.gguf", "");
    if (!a || !b || !store->appendMessage(*a, ChatStore::message(*a, "user", "how many experts fit?", "done")) ||
        !store->appendMessage(*b, ChatStore::message(*b, "user", "soup", "done")) ||
        // Shoehorn was killed mid-answer:
        !store->appendMessage(*b, ChatStore::message(*b, "assistant", "half an answer", "streaming")))
        return {};
    return {*a, *b};
}

void TestMainWindow::clickChat(ChatList *chats, qint64 id)
{
    QTest::mouseClick(chats->view()->viewport(), Qt::LeftButton, {},
                      chats->view()->visualRect(chats->model()->index(chats->model()->rowOf(id))).center());
}

qint64 TestMainWindow::highlightedChat(ChatList *chats)
{
    const QModelIndexList rows = chats->view()->selectionModel()->selectedRows();
    return rows.size() == 1 ? chats->model()->idAt(rows.front().row()) : qint64(-rows.size());
}

// Open a chat, then Ctrl+N: nothing is highlighted (Delete there would delete the chat left),
// and the keys go to the message box.
void TestMainWindow::newChatHighlightsNothing()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(*cApp.model());
    const TwoChats two = storeTwoChats(cApp.history()->store());
    QVERIFY(two.planning && two.recipes);
    MainWindow w(cApp.windowParts());
    w.setLocateChooser([](const QString &, const std::function<void(const QString &)> &done) { done(QString()); });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ChatList *chats = w.chatList();
    clickChat(chats, two.planning);
    QCOMPARE(highlightedChat(chats), two.planning);
    QTest::keySequence(&w, QKeySequence::New);
    QCOMPARE(c.currentConversation(), 0);
    QCOMPARE(highlightedChat(chats), qint64(0));
    QTRY_VERIFY(w.findChild<MessageInput *>()->hasFocus());
    bool asked = false;
    chats->setDeleteAsker([&](const QString &, std::function<void(bool)> done) {
        asked = true;
        done(true);
    });
    QTest::mouseClick(chats->findChild<QPushButton *>("deleteChatButton"), Qt::LeftButton);
    QVERIFY(!asked);
    QCOMPARE(chats->model()->rowCount(), 2);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
