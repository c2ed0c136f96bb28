// The Models list: docked beside the chat (about 420 px wide) and in the window, where it follows
// the model being loaded and the offload panel's model, opens a recent model and sees files gone.
#include "../app/fakeworker.h"
#include "../app/startfresh.h"
#include "../app/smallchat.h"
#include "appcore.h"
#include "appsettings.h"
#include "chatcontroller.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "hardware.h"
#include "loadedmodel.h"
#include "mainwindow.h"
#include "modelbrowser.h"
#include "modellibrary.h"
#include "offloadcontroller.h"
#include "testfixtures.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

class TestModelBrowser : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { startFresh(); }
    void longNameKeepsTheFitInView();
    void modelsListShowsTheLoad();
    void modelsListSelectsThePanelsModel();
    void browserOpensRecentModel();
    void browserSeesFilesGoneWhenTheWindowIsActiveAgain();

private:
    static void configure(LoadedModel &c) { configureSmallChat(c, 64, 11); }
};

// A long file name, as the quantizers' downloads have, is cut in the middle and the Fit verdict
// comes right after it, in view: the name's column pushed the verdict and everything after
// Architecture out of sight, behind a sideways scroll bar.
void TestModelBrowser::longNameKeepsTheFitInView()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("Qwen3-30B-A3B-Instruct-2507-UD-Q4_K_XL.gguf"));
    QVERIFY(QFile::link(TestFixtures::instance().qwen3_30b(), path));
    ModelLibrary library;
    ModelBrowser browser(&library);
    browser.resize(425, 400);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    library.setTarget(shoehorn::targetFromProfile(*shoehorn::findProfile("gtx1060-6g")));
    library.addFolder(dir.path());
    QTRY_COMPARE_WITH_TIMEOUT(library.indexOf(path), 0, 20000);
    const QModelIndex name = library.index(0);
    const QModelIndex fit = name.siblingAtColumn(ModelLibrary::FitColumn);
    QTRY_VERIFY_WITH_TIMEOUT(!fit.data().toString().isEmpty(), 20000);
    auto *list = browser.findChild<QTableView *>(QStringLiteral("modelList"));
    QVERIFY(list);
    QTRY_VERIFY2(list->viewport()->rect().contains(list->visualRect(fit)),
                 qPrintable(QStringLiteral("the verdict at x %1-%2, the list %3 wide")
                                .arg(list->visualRect(fit).left())
                                .arg(list->visualRect(fit).right())
                                .arg(list->viewport()->width())));
    QVERIFY(list->visualRect(name).right() < list->visualRect(fit).left());
    const int whole = list->fontMetrics().horizontalAdvance(name.data().toString());
    QVERIFY2(list->visualRect(name).width() < whole, qPrintable(QString::number(list->visualRect(name).width()))); // cut
    QCOMPARE(list->textElideMode(), Qt::ElideMiddle);
    QVERIFY(name.data(Qt::ToolTipRole).toString().startsWith(path));
    // A larger desktop font: the columns may grow with it.
    const int cap = list->horizontalHeader()->maximumSectionSize();
    QFont large = browser.font();
    large.setPointSizeF(large.pointSizeF() * 2);
    browser.setFont(large);
    QVERIFY2(list->horizontalHeader()->maximumSectionSize() > cap * 3 / 2,
             qPrintable(QStringLiteral("%1 then %2").arg(cap).arg(list->horizontalHeader()->maximumSectionSize())));
}

// The Models list shows a model as soon as it is being opened (from anywhere: here the
// controller, as the command line and the offload panel do), with its progress.
void TestModelBrowser::modelsListShowsTheLoad()
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
void TestModelBrowser::modelsListSelectsThePanelsModel()
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

void TestModelBrowser::browserOpensRecentModel()
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
void TestModelBrowser::browserSeesFilesGoneWhenTheWindowIsActiveAgain()
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

QTEST_MAIN(TestModelBrowser)
#include "tst_modelbrowser.moc"
