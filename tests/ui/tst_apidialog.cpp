// The Local API dialog's words for settings it cannot start with, before anything listens.
#include "apicontroller.h"
#include "apidialog.h"
#include "apihost.h"
#include "testsettings.h"

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
};

// An emptied Host field said "can be reached from other computers: it needs an API key" and the
// exposure line "other computers that reach  can use the API" (found using the window).
void TestApiDialog::emptyHostIsAskedFor()
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
}

QTEST_MAIN(TestApiDialog)
#include "tst_apidialog.moc"
