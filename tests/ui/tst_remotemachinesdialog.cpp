// The Remote machines dialog words what RemoteMachines::add answers (typed in the app layer).
#include "appsettings.h"
#include "remotemachines.h"
#include "remotemachinesdialog.h"
#include "testsettings.h"

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QtTest>

class TestRemoteMachinesDialog : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void addingSaysWhyNot_data();
    void addingSaysWhyNot();
};

void TestRemoteMachinesDialog::addingSaysWhyNot_data()
{
    QTest::addColumn<QStringList>("typed");  // addresses added one after the other
    QTest::addColumn<QString>("message");    // what the dialog says after the last one
    QTest::addColumn<QString>("left");       // what stays in the address box
    QTest::newRow("an address") << QStringList{"127.0.0.1:1"} << "" << "";
    QTest::newRow("no port") << QStringList{"localhost"}
                             << "Give the machine as host:port, for example 192.168.1.20:50052 (the port its "
                                "rpc-worker prints)."
                             << "localhost";
    QTest::newRow("twice") << QStringList{"127.0.0.1:1", " 127.0.0.1:1 "} << "127.0.0.1:1 is in the list already."
                           << " 127.0.0.1:1 ";
}

void TestRemoteMachinesDialog::addingSaysWhyNot()
{
    QFETCH(QStringList, typed);
    QFETCH(QString, message);
    QFETCH(QString, left);
    AppSettings::waitForWrites();
    QSettings().clear();
    RemoteMachines machines;
    RemoteMachinesDialog dialog(&machines);
    auto *address = dialog.findChild<QLineEdit *>("remoteAddress");
    auto *add = dialog.findChild<QPushButton *>("remoteAdd");
    auto *said = dialog.findChild<QLabel *>("remoteMessage");
    QVERIFY(address && add && said);
    for (const QString &t : typed) {
        address->setText(t);
        add->click();
    }
    QCOMPARE(said->text(), message);
    QCOMPARE(address->text(), left);
}

QTEST_MAIN(TestRemoteMachinesDialog)
#include "tst_remotemachinesdialog.moc"
