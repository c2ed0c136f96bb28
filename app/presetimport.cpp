#include "presetimport.h"

#include "appsettings.h"
#include "presetini.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

PresetImport PresetImport::fromFile(const QString &path, const ModelSettings &base)
{
    PresetImport out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out.error = {shoehorn::ErrorCode::FileUnreadable, f.errorString().toStdString()};
        return out;
    }
    auto parsed = shoehorn::parsePresetIni(f.readAll().toStdString());
    if (!parsed) {
        out.error = {shoehorn::ErrorCode::InvalidArgument, parsed.error().detail};
        return out;
    }
    // A relative model or mmproj path is beside the file, as `shoehorn-cli serve --models-preset`
    // reads it: the same file means the same models in the window and in serve.
    const QDir dir = QFileInfo(path).absoluteDir();
    const auto resolve = [&dir](std::optional<std::string> &p) {
        if (p && !p->empty() && QDir::isRelativePath(QString::fromStdString(*p)))
            p = QDir::cleanPath(dir.absoluteFilePath(QString::fromStdString(*p))).toStdString();
    };
    for (auto &m : parsed->models) {
        resolve(m.model);
        resolve(m.mmproj);
    }
    out.models = ModelSettingsStore::importPresets(*parsed, base);
    for (const auto &p : parsed->models)
        if (p.model && p.loadOnStartup.value_or(false))
            AppSettings::setStartupModel(QString::fromStdString(*p.model));
    out.skipped = int(parsed->models.size()) - int(out.models.size());
    for (const auto &i : parsed->issues)
        out.issues.append({i.line, QString::fromStdString(i.section), QString::fromStdString(i.key),
                           QString::fromStdString(i.message)});
    return out;
}
