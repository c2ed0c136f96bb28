// The Local API dialog's words for settings it cannot start with, before anything listens.
#include "apicontroller.h"
#include "apidialog.h"
#include "appsettings.h"
#include "apihost.h"
#include "testsettings.h"

#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

class TestApiDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void emptyHostIsAskedFor();
    void textIsNeverSqueezed();
    void keyNotSavedStaysSaid();
};

// An emptied Host field said "can be reached from other computers: it needs an API key" and the
// exposure line "other computers that reach  can use the API" (found using the window).
void TestApiDialog::emptyHostIsAskedFor() // and a host that is none
{
    ApiController api(std::make_shared<ApiHost>());
    ApiDialog dialog(&api);
    dialog.show();
    auto *host = dialog.findChild<QLineEdit *>("apiHost");
    host->setText(QString());
    QVERIFY(!dialog.findChild<QLabel *>("apiExposure")->isVisible());
    QTest::mouseClick(dialog.findChild<QPushButton *>("apiToggle"), Qt::LeftButton);
    const QString said = dialog.findChild<QLabel *>("apiMessage")->text();
    QVERIFY2(said.startsWith("Enter the address to listen on: 127.0.0.1"), qPrintable(said));
    QCOMPARE(api.state(), ApiController::State::Off);
    // Neither an address nor a name: said so ("can be reached from other computers: it needs an
    // API key" before), and no warning about who could reach it.
    host->setText("not a host!!");
    QVERIFY(!dialog.findChild<QLabel *>("apiExposure")->isVisible());
    QTest::mouseClick(dialog.findChild<QPushButton *>("apiToggle"), Qt::LeftButton);
    QCOMPARE(dialog.findChild<QLabel *>("apiMessage")->text(),
             QString("not a host!! is not an address or a host name: 127.0.0.1 is this computer only, 0.0.0.0 every "
                     "network."));
}

// With the red exposure line shown, the dialog's wrapped sentences were cut at top and bottom
// (found using the window): each label gets the height its text needs at its width, at the
// dialog's own size and on a 1366x768 laptop's.
void TestApiDialog::textIsNeverSqueezed()
{
    ApiController api(std::make_shared<ApiHost>());
    ApiDialog dialog(&api);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.findChild<QLineEdit *>("apiHost")->setText("a-host-name-long-enough-to-take-two-lines-in-the-dialog.example.lan");
    QVERIFY(dialog.findChild<QLabel *>("apiExposure")->isVisible());
    // The labels the layout gave less height than their text needs at their width.
    auto squeezed = [&dialog] {
        QStringList out;
        for (QLabel *l : dialog.findChildren<QLabel *>())
            if (l->isVisible() && l->wordWrap() && !l->text().isEmpty() && l->height() < l->heightForWidth(l->width()))
                out << QString("%1: %2 px of %3").arg(l->text().left(40)).arg(l->height()).arg(l->heightForWidth(l->width()));
        return out.join("; ");
    };
    for (const QSize size : {dialog.size(), QSize(720, 700)}) {
        dialog.resize(size);
        QTRY_COMPARE(dialog.size(), size);
        // Once laid out again (a label just shown is placed by a posted layout request).
        QTRY_VERIFY2_WITH_TIMEOUT(squeezed().isEmpty(),
                                  qPrintable(QString("at %1x%2: ").arg(size.width()).arg(size.height()) + squeezed()), 2000);
    }
}

// A key file that cannot be written (a full disk; here its path is a folder): said in its own line,
// which the Start button's messages do not replace, until a save works.
void TestApiDialog::keyNotSavedStaysSaid()
{
    ApiController api(std::make_shared<ApiHost>());
    ApiDialog dialog(&api);
    dialog.show();
    auto *problem = dialog.findChild<QLabel *>("apiKeyProblem");
    QVERIFY(problem && !problem->isVisible());
    QFile::remove(ApiController::keyFilePath());
    QVERIFY(QDir().mkpath(ApiController::keyFilePath()));
    dialog.findChild<QLineEdit *>("apiKey")->setText("sk-shoehorn-typed");
    QTest::mouseClick(dialog.findChild<QPushButton *>("apiToggle"), Qt::LeftButton); // applied, then refused: no model
    QTRY_VERIFY(problem->isVisible());
    QVERIFY2(problem->text().contains("The API key was not saved") &&
                 problem->text().contains(ApiController::keyFilePath()),
             qPrintable(problem->text()));
    QTRY_VERIFY(dialog.findChild<QLabel *>("apiMessage")->text().contains("Load a model first"));
    QVERIFY(problem->isVisible());
    QVERIFY(QDir(ApiController::keyFilePath()).removeRecursively());
    QTest::mouseClick(dialog.findChild<QPushButton *>("apiToggle"), Qt::LeftButton);
    QTRY_VERIFY(!problem->isVisible());
    AppSettings::waitForWrites();
    QFile::remove(ApiController::keyFilePath());
}

QTEST_MAIN(TestApiDialog)
#include "tst_apidialog.moc"
