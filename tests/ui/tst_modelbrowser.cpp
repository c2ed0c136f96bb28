// The Models list as it is docked beside the chat (about 420 px wide).
#include "appsettings.h"
#include "hardware.h"
#include "modelbrowser.h"
#include "modellibrary.h"
#include "testfixtures.h"

#include <QHeaderView>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

class TestModelBrowser : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init()
    {
        AppSettings::waitForWrites(); // a write still pending from the last test lands first
        QSettings().clear();
    }
    void longNameKeepsTheFitInView();
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
}

QTEST_MAIN(TestModelBrowser)
#include "tst_modelbrowser.moc"
