// The UI in Simplified Chinese: the catalogue is complete and the main actions read Chinese.
#include "appsettings.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "mainwindow.h"
#include "translations.h"
#include "../app/fakeworker.h"
#include "smallscreen.h"

#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

class TestTranslations : public QObject
{
    Q_OBJECT
private slots:
    void catalogueComplete();
    void languageSettingOverridesSystem();
    void mainWindowInChinese();
    void chineseWindowFitsSmallScreen();
    void otherLanguagesReadEnglishPlurals_data();
    void otherLanguagesReadEnglishPlurals();
};

void TestTranslations::languageSettingOverridesSystem()
{
    // View > Language stores the choice; the next start uses it over the system locale.
    QStandardPaths::setTestModeEnabled(true);
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
    qunsetenv("SHOEHORN_LANG");
    {
        AppCore cApp;
        MainWindow w(cApp.windowParts());
        QString info;
        w.setInfoPresenter([&](const QString &, const QString &text) { info = text; });
        auto *chinese = w.findChild<QAction *>("language_zh_CN");
        QVERIFY(chinese);
        chinese->trigger();
        AppSettings::waitForWrites(); // written on the settings writer's thread
        QCOMPARE(QSettings().value("language").toString(), QString("zh_CN"));
        QVERIFY(info.contains("next time"));
    }
    QCOMPARE(installTranslations(*qApp), QString("zh_CN"));
    QSettings().setValue("language", "en");
    QCOMPARE(installTranslations(*qApp), QString("en_US"));
    QSettings().remove("language");
}

void TestTranslations::catalogueComplete()
{
    QFile ts(QStringLiteral(SHOEHORN_SOURCE_DIR "/translations/shoehorn_zh_CN.ts"));
    QVERIFY(ts.open(QIODevice::ReadOnly));
    const QString xml = QString::fromUtf8(ts.readAll());
    QCOMPARE(xml.count(QStringLiteral("type=\"unfinished\"")), 0);
    QCOMPARE(xml.count(QStringLiteral("<translation></translation>")), 0);
    QVERIFY(xml.count(QStringLiteral("<message")) > 40);
}

void TestTranslations::mainWindowInChinese()
{
    qputenv("SHOEHORN_LANG", "zh_CN");
    QCOMPARE(installTranslations(*qApp), QString("zh_CN"));
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    w.show();
    const QRegularExpression han(QStringLiteral("\\p{Han}"));
    QVERIFY(w.findChild<QPushButton *>("openModelButton")->text().contains(han));
    QVERIFY(w.findChild<QLabel *>("emptyHint")->text().contains(han));
    QVERIFY(w.findChild<QPushButton *>("sendButton")->text().contains(han));
    QVERIFY(w.menuBar()->actions().first()->text().contains(han));
    QCOMPARE(w.findChild<QPushButton *>("sendButton")->text(), QString::fromUtf8("发送"));
}

// Chinese rows are taller: the 1366x768 window still shows the whole panel, the buttons and Send.
void TestTranslations::chineseWindowFitsSmallScreen()
{
    qputenv("SHOEHORN_LANG", "zh_CN");
    QCOMPARE(installTranslations(*qApp), QString("zh_CN"));
    AppCore cApp{std::unique_ptr<Worker>(new FakeWorker)};
    MainWindow w(cApp.windowParts());
    QCOMPARE(w.findChild<QPushButton *>("autoFitButton")->text(), QString::fromUtf8("自动适配"));
    const QString problem = SmallScreen::check(w, *cApp.model());
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestTranslations::otherLanguagesReadEnglishPlurals_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("C") << "C";
    QTest::newRow("de_DE") << "de_DE";
    QTest::newRow("fr_FR") << "fr_FR";
    QTest::newRow("en_GB") << "en_GB";
}

// A language Shoehorn has no catalogue for reads English with its plurals ("4 layer(s)" before),
// also after another language was installed in this process.
void TestTranslations::otherLanguagesReadEnglishPlurals()
{
    QFETCH(QString, language);
    qputenv("SHOEHORN_LANG", "zh_CN");
    installTranslations(*qApp);
    qputenv("SHOEHORN_LANG", language.toUtf8());
    installTranslations(*qApp);
    QCOMPARE(QCoreApplication::translate("OffloadPanel", "%n layer(s)", "", 1), QString("1 layer"));
    QCOMPARE(QCoreApplication::translate("OffloadPanel", "%n layer(s)", "", 4), QString("4 layers"));
    QCOMPARE(QCoreApplication::translate("Composer", "Send"), QString("Send"));
    qunsetenv("SHOEHORN_LANG");
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
