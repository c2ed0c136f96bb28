#include "filesafety.h"

#include "filecheck.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

std::optional<shoehorn::Error> checkUntrustedFile(const QString &path, const std::atomic<bool> *cancel)
{
    const QString helper = QCoreApplication::applicationDirPath() + QStringLiteral("/shoehorn-cli");
    if (!QFileInfo(helper).isExecutable()) {
        qWarning("shoehorn-cli is not beside the app (%s): files are loaded without the safety check",
                 qPrintable(helper));
        return std::nullopt;
    }
    const QString cache =
        QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/checked-files");
    auto verdict =
        shoehorn::checkFileIsolated(path.toStdString(), helper.toStdString(), {}, cache.toStdString(), cancel);
    if (!verdict)
        return verdict.error();
    return std::nullopt;
}
