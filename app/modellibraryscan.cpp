// ModelLibrary's looks at the disk, all on the work pool: the folders scanned and new files
// inspected (rescan), and whether each listed file is still there (checkFiles).
#include "modellibrary.h"

#include "workpool.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

using namespace shoehorn;

namespace {

// The first part of a split model stands for all of them; the others are not listed.
bool isLaterSplitPart(const QString &path)
{
    static const QRegularExpression re(QStringLiteral("-(\\d{5})-of-\\d{5}\\.gguf$"));
    const auto m = re.match(path);
    return m.hasMatch() && m.captured(1) != QLatin1String("00001");
}
} // namespace

bool ModelLibrary::isScanning() const
{
    return m_watcher.isRunning();
}

void ModelLibrary::rescan()
{
    if (m_watcher.isRunning()) {
        m_rescanAgain = true;
        return;
    }
    QStringList toInspect;
    for (const Entry &e : m_entries)
        if (!e.info && !e.error)
            toInspect << e.path;
    m_watcher.setFuture(QtConcurrent::run(workPool(), &ModelLibrary::scan, m_folders, toInspect));
}

ModelLibrary::Scan ModelLibrary::scan(const QStringList &folders, const QStringList &toInspect)
{
    Scan out;
    QStringList paths = toInspect;
    for (const QString &folder : folders) {
        QDirIterator it(folder, {QStringLiteral("*.gguf")}, QDir::Files | QDir::Readable, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString p = it.next();
            if (!it.fileInfo().isFile())
                continue; // a named pipe or a device called *.gguf: opening it could wait forever
            if (isLaterSplitPart(p) || VisionController::isProjectorFile(p))
                continue; // a projector (mmproj*.gguf) is paired with a model, not listed as one
            out.found << p;
            if (!paths.contains(p))
                paths << p;
        }
    }
    for (const QString &p : paths) {
        auto r = inspectModel(p.toStdString());
        if (r && r->architecture != "clip")
            out.projectors.insert(p, VisionController::candidates(p));
        if (r)
            out.inspected.append({p, std::make_shared<const ModelInfo>(std::move(*r))});
        else if (QFileInfo::exists(p))
            out.failed.append({p, r.error()});
    }
    return out;
}

void ModelLibrary::applyScan()
{
    const Scan s = m_watcher.result();
    // Projectors for images (mmproj, architecture "clip") are not chat models.
    QStringList skip;
    for (const auto &[path, info] : s.inspected)
        if (info->architecture == "clip")
            skip << path;
    QStringList newRows;
    for (const QString &p : s.found)
        if (indexOf(p) < 0 && !skip.contains(p))
            newRows << p;
    std::sort(newRows.begin(), newRows.end(),
              [](const QString &a, const QString &b) { return QFileInfo(a).fileName() < QFileInfo(b).fileName(); });
    if (!newRows.isEmpty()) {
        const int first = int(m_entries.size());
        beginInsertRows({}, first, first + int(newRows.size()) - 1);
        for (const QString &p : newRows)
            m_entries.append({p, false, true, nullptr, {}, FitVerdict::Unknown, {}});
        endInsertRows();
    }
    for (const auto &[path, info] : s.inspected) {
        const int row = indexOf(path);
        if (row < 0)
            continue;
        m_entries[row].info = info;
        m_entries[row].projectors = s.projectors.value(path);
        emit dataChanged(QAbstractTableModel::index(row, 0), QAbstractTableModel::index(row, ColumnCount - 1));
    }
    if (!s.inspected.isEmpty())
        refit();
    for (const auto &[path, error] : s.failed) {
        const int row = indexOf(path);
        if (row >= 0) {
            m_entries[row].error = error;
            emit dataChanged(QAbstractTableModel::index(row, 0), QAbstractTableModel::index(row, ColumnCount - 1));
        }
    }
    if (m_rescanAgain) {
        m_rescanAgain = false;
        rescan();
        return;
    }
    checkFiles();
    emit scanFinished();
}

void ModelLibrary::checkFiles()
{
    if (m_checking.isRunning()) {
        m_checkAgain = true;
        return;
    }
    QStringList paths;
    for (const Entry &e : m_entries)
        paths << e.path;
    m_checking.setFuture(QtConcurrent::run(workPool(), [paths] {
        QStringList missing;
        for (const QString &p : paths)
            if (!QFileInfo::exists(p))
                missing << p;
        return missing;
    }));
}

void ModelLibrary::applyChecks()
{
    if (m_checkAgain) { // rows came or went meanwhile
        m_checkAgain = false;
        checkFiles();
        return;
    }
    const QStringList missing = m_checking.result();
    for (int row = 0; row < m_entries.size(); ++row) {
        Entry &e = m_entries[row];
        if (const bool gone = missing.contains(e.path); gone != e.missing) {
            e.missing = gone;
            emit dataChanged(index(row), index(row), {ExistsRole});
        }
    }
}
