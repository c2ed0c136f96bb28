#include "filesafety.h"

#include "filecheck.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

QString fileSafetyHelper()
{
    const QString helper = QCoreApplication::applicationDirPath() + QStringLiteral("/shoehorn-cli");
    return QFileInfo(helper).isExecutable() ? helper : QString();
}

std::optional<shoehorn::Error> checkUntrustedFile(const QString &path, const std::atomic<bool> *cancel)
{
    const QString helper = fileSafetyHelper();
    if (helper.isEmpty()) {
        qWarning("shoehorn-cli is not beside the app (%s): files are loaded without the safety check",
                 qPrintable(QCoreApplication::applicationDirPath()));
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

std::optional<shoehorn::SpeculationOff> checkDraftModel(shoehorn::SpeculationSettings &s, const std::atomic<bool> *cancel)
{
    if (s.draftModel.empty())
        return std::nullopt;
    const auto failed = checkUntrustedFile(QString::fromStdString(s.draftModel), cancel);
    if (!failed)
        return std::nullopt;
    shoehorn::SpeculationOff off{shoehorn::SpeculationOff::Why::DraftUnreadable, s.draftModel,
                                 "-md " + s.draftModel + ": " +
                                     shoehorn::errorMessage(*failed)};
    s = shoehorn::SpeculationSettings();
    return off;
}
