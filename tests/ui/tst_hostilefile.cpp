// A GGUF whose chat template hangs or crashes llama.cpp, opened in the real window: the safety
// check in the helper process stops it, the window says why in words, nothing is loaded, the
// app goes on, and a good file loads right after.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatstore.h"
#include "fixtures.h"
#include "mainwindow.h"
#include "malformedfiles.h"
#include "offloadpanel.h"
#include "testfixtures.h"

#include <QElapsedTimer>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

class TestHostileFile : public QObject
{
    Q_OBJECT
private:
    // The window up, its error dialogs collected as "title\ntext".
    [[nodiscard]] static bool shown(MainWindow &window, QStringList &errors)
    {
        window.setErrorPresenter([&errors](const QString &title, const QString &text) { errors << title + "\n" + text; });
        window.show();
        return QTest::qWaitForWindowExposed(&window);
    }
    static QString write(const QString &name, const std::string &chatTemplate)
    {
        return TestFixtures::instance().withTemplate(name, chatTemplate);
    }

private slots:
    void init() { startFresh(); }
    void hostileTemplateIsStoppedBeforeLoading_data();
    void hostileTemplateIsStoppedBeforeLoading();
    void damagedFileIsRefused_data();
    void damagedFileIsRefused();
};

void TestHostileFile::hostileTemplateIsStoppedBeforeLoading_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("cause");
    QTest::newRow("calls itself") << write("recursive.gguf", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")
                                  << "crashed while rendering the chat template";
    QTest::newRow("spins") << write("spins.gguf", "{% for a in range(1000) %}{% for b in range(1000) %}"
                                                  "{% for c in range(1000) %}{% endfor %}{% endfor %}{% endfor %}")
                           << "rendering the chat template did not finish in 5 s";
}

void TestHostileFile::hostileTemplateIsStoppedBeforeLoading()
{
    QFETCH(QString, file);
    QFETCH(QString, cause);
    AppCore controllerApp;
    LoadedModel &lm = *controllerApp.model();
    MainWindow window(controllerApp.windowParts());
    QStringList errors;
    QVERIFY(shown(window, errors));
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    QElapsedTimer t;
    t.start();
    window.openModel(file);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 15000);
    QVERIFY2(t.elapsed() < 8000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(failed.at(0).at(0).value<shoehorn::Error>().code, shoehorn::ErrorCode::FileCheckFailed);
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors[0].contains(QFileInfo(file).fileName() + " could not be opened.") &&
                 errors[0].contains("safety check") && errors[0].contains(cause) &&
                 errors[0].contains(QFileInfo(file).fileName()),
             qPrintable(errors[0]));
    QVERIFY(!lm.hasModel());
    // The offload panel's llama.cpp dry run (in this process) does not run on it either.
    OffloadPanel *panel = window.findChild<OffloadPanel *>();
    QVERIFY(panel);
    panel->setModelPath(file);
    QTRY_VERIFY_WITH_TIMEOUT(panel->exactText().contains(cause), 20000);
    // The window goes on: a good file loads.
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    window.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

void TestHostileFile::damagedFileIsRefused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("cause");
    QList<MalformedFile> files = malformedFiles() + dryRunFiles();
    for (const MalformedFile &f : files)
        if (f.kind == "alignment 8" || f.kind == "weight in I32" || f.kind == "unknown rope scaling" ||
            f.kind == "K weight of another shape")
            QTest::newRow(qPrintable(f.kind)) << f.bytes << f.detail;
    QTest::newRow("named pipe") << QByteArray() << "is not a regular file (a named pipe)";
}

// Files that would abort llama.cpp in this process (a misaligned tensor, a weight type no CPU
// kernel takes, an assert while placing tensors) and a named pipe: the window says what is wrong,
// loads nothing, and a good file loads after.
void TestHostileFile::damagedFileIsRefused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, cause);
    QTemporaryDir dir;
    const QString file = dir.filePath("downloaded.gguf");
    if (bytes.isEmpty()) {
        QVERIFY(::mkfifo(qPrintable(file), 0600) == 0);
    } else {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }
    AppCore controllerApp;
    LoadedModel &lm = *controllerApp.model();
    MainWindow window(controllerApp.windowParts());
    QStringList errors;
    QVERIFY(shown(window, errors));
    QSignalSpy failed(&lm, &LoadedModel::loadFailed);
    window.openModel(file);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 15000);
    QTRY_COMPARE(errors.size(), 1);
    QVERIFY2(errors[0].contains("downloaded.gguf could not be opened.") && errors[0].contains(cause), qPrintable(errors[0]));
    QVERIFY(!lm.hasModel());
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    window.openModel(TestFixtures::instance().tinyLlama());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
}

QTEST_MAIN(TestHostileFile)
#include "tst_hostilefile.moc"
