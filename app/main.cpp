// Shoehorn: the desktop application.
#include "chatcontroller.h"
#include "mainwindow.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>

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
    parser.process(app);

    ChatController controller;
    MainWindow window(&controller);
    window.show();
    const QStringList args = parser.positionalArguments();
    if (!args.isEmpty())
        window.openModel(QFileInfo(args.first()).absoluteFilePath());
    return app.exec();
}
