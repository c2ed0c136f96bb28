#include "filesafety.h"

#include "filecheck.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

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
    if (failed->code == shoehorn::ErrorCode::Cancelled)
        return std::nullopt; // the load sees the same flag and ends as cancelled
    const std::string sentence = shoehorn::flaggedVerdict("-md", s.draftModel, *failed);
    const size_t named = std::string("-md ").size() + s.draftModel.size() + 2; // "-md PATH: "
    shoehorn::SpeculationOff off{shoehorn::SpeculationOff::Why::DraftFailedCheck, s.draftModel, sentence,
                                 sentence.substr(std::min(named, sentence.size()))};
    s = shoehorn::SpeculationSettings();
    return off;
}
