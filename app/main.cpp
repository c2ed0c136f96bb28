// Shoehorn: the desktop application.
#include "appsettings.h"
#include "appcore.h"
#include "mainwindow.h"
#include "singleinstance.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Shoehorn"));
    QApplication::setOrganizationName(QStringLiteral("Shoehorn"));
    QApplication::setApplicationVersion(QStringLiteral(SHOEHORN_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.shoehorn.Shoehorn"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/shoehorn.svg")));
    installTranslations(app);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QCoreApplication::translate("main", "Chat with large local GGUF models on small GPUs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"), QCoreApplication::translate("main", "A .gguf model to open."),
                                 QStringLiteral("[model.gguf]"));
    QCommandLineOption importChat(QStringLiteral("import-chat"),
                                  QCoreApplication::translate("main", "Import a chat exported as JSON and open it."),
                                  QStringLiteral("file.json"));
    parser.addOption(importChat);
    parser.process(app);

    QStringList paths;
    for (const QString &arg : parser.positionalArguments())
        paths << QFileInfo(arg).absoluteFilePath();

    // A running Shoehorn takes the files and comes to the front; this launch ends here.
    SingleInstance instance;
    if (instance.forwardToRunning(paths))
        return 0;
    instance.listen();

    AppCore core;
    MainWindow window(core.windowParts());
    QObject::connect(&instance, &SingleInstance::filesReceived, &window, &MainWindow::openFiles);
    window.show();
    if (paths.isEmpty()) {
        // A preset marked load-on-startup (imported from llama-server) opens by itself.
        const QString startup = AppSettings::startupModel();
        if (!startup.isEmpty() && QFileInfo::exists(startup))
            paths << startup;
    }
    if (parser.isSet(importChat))
        window.importChatFile(parser.value(importChat));
    else if (!paths.isEmpty())
        window.openFiles(paths);
    const int rc = app.exec();
    // Quitting never waits for ever: an answer stuck inside llama.cpp (a template that spins)
    // cannot keep the process alive. Chats are saved as they happen; the last answer is saved
    // by shutdown() when the worker stops in time.
    if (!core.shutdown(2000)) { // it said why
        std::fflush(nullptr);
        std::_Exit(rc);
    }
    return rc;
}
