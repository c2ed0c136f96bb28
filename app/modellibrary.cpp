#include "modellibrary.h"

#include "appsettings.h"
#include "autofit.h"
#include "modelsettings.h"
#include "workpool.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <utility>

using namespace shoehorn;

namespace {

QString compactCount(uint64_t n)
{
    return QString::fromStdString(formatParameterCount(n));
}

} // namespace

QString ModelLibrary::quantDescription(const QString &raw)
{
    // Names as they appear in GGUF metadata and file names (Unsloth's "UD-" dynamic quants too).
    const QString q = raw.toUpper();
    QStringList parts;
    if (q.contains(QLatin1String("UD-")) || q.startsWith(QLatin1String("UD")))
        parts << tr("Unsloth Dynamic: important layers keep more bits than the name says.");
    static const QRegularExpression bitsRe(QStringLiteral("(?:I?Q|TQ)(\\d)"));
    const auto bits = bitsRe.match(q);
    if (q == QLatin1String("F16") || q == QLatin1String("BF16"))
        parts << tr("16-bit weights: no quantization loss, twice the size of Q8_0.");
    else if (q == QLatin1String("F32"))
        parts << tr("32-bit weights: unquantized.");
    else if (bits.hasMatch())
        parts << tr("About %1 bits per weight: fewer bits, smaller and faster, less accurate.").arg(bits.captured(1));
    if (q.startsWith(QLatin1String("IQ")) || q.contains(QLatin1String("_NL")))
        parts << tr("I-quant: better quality at low bits, often slower on the CPU.");
    else if (q.contains(QLatin1String("_K")))
        parts << tr("K-quant: blocks with their own scales; sensitive tensors get more bits.");
    if (q.endsWith(QLatin1String("_XL")))
        parts << tr("XL: the largest, most accurate variant of this size.");
    else if (q.endsWith(QLatin1String("_L")))
        parts << tr("L: a larger, more accurate variant.");
    else if (q.endsWith(QLatin1String("_M")))
        parts << tr("M: the usual balance of size and quality.");
    else if (q.endsWith(QLatin1String("_S")) || q.endsWith(QLatin1String("_XS")) || q.endsWith(QLatin1String("_XXS")))
        parts << tr("S/XS: smaller and less accurate.");
    return parts.join(QLatin1Char(' '));
}

ModelLibrary::ModelLibrary(QObject *parent) : QAbstractTableModel(parent)
{
    const QStringList recent = AppSettings::recentModels();
    for (const QString &p : recent)
        if (m_entries.size() < kMaxEntries)
            m_entries.append({p, false, false, nullptr, {}, FitVerdict::Unknown, {}});
    m_folders = AppSettings::modelFolders();
    connect(&m_watcher, &QFutureWatcher<Scan>::finished, this, &ModelLibrary::applyScan);
    connect(&m_fitting, &QFutureWatcher<Verdicts>::finished, this, &ModelLibrary::applyFits);
    connect(&m_checking, &QFutureWatcher<QStringList>::finished, this, &ModelLibrary::applyChecks);
    rescan();
    checkFiles();
}

// Not waited for: the scan (a static function on copies of the folders and paths) touches nothing
// of this object; its result is dropped with the watcher.
ModelLibrary::~ModelLibrary() = default;

int ModelLibrary::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int ModelLibrary::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ModelLibrary::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case ArchitectureColumn: return tr("Architecture");
    case ParametersColumn: return tr("Parameters");
    case QuantColumn: return tr("Quant");
    case ImagesColumn: return tr("Images");
    case SizeColumn: return tr("Size");
    case ContextColumn: return tr("Context");
    case FitColumn: return tr("Fit");
    default: return {};
    }
}

QVariant ModelLibrary::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries.at(index.row());
    switch (role) {
    case PathRole: return e.path;
    case OfferedRole: return e.offered;
    case ExistsRole: return !e.missing; // not a stat at each paint: checkFiles()
    case FitRole: return QVariant::fromValue(e.fit);
    case LoadingRole: return e.path == m_loading ? QVariant(m_loadFraction) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == QuantColumn && e.info)
            return quantDescription(QString::fromStdString(e.info->fileTypeName));
        if (index.column() == ImagesColumn) {
            QStringList files;
            for (const auto &c : e.projectors)
                files << QFileInfo(c.path).fileName() +
                             (c.mismatch ? QStringLiteral(" (%1)").arg(tr("not for this model")) : QString());
            return files.isEmpty() ? tr("No vision projector (mmproj*.gguf) beside this model")
                                   : tr("Vision projectors beside it:\n%1").arg(files.join(QLatin1Char('\n')));
        }
        return !e.error ? e.path : e.path + QLatin1Char('\n') + QString::fromStdString(e.error.detail);
    case Qt::DisplayRole: break;
    default: return {};
    }
    const ModelInfo *m = e.info.get();
    switch (index.column()) {
    case NameColumn:
        if (e.path == m_loading)
            return tr("%1 — loading %2%").arg(QFileInfo(e.path).fileName()).arg(int(m_loadFraction * 100));
        return QFileInfo(e.path).fileName();
    case ArchitectureColumn: return m ? QString::fromStdString(m->architecture) : QString();
    case ParametersColumn:
        if (!m)
            return {};
        return m->isMoe() ? tr("%1 (%2 active)").arg(compactCount(m->parameterCount), compactCount(m->activeParameterCount()))
                          : compactCount(m->parameterCount);
    case QuantColumn: return m ? QString::fromStdString(m->fileTypeName) : QString();
    case SizeColumn: return m ? QString::fromStdString(formatBytes(m->fileSize)) : QString();
    case ImagesColumn: return visionText(e);
    case ContextColumn:
        return m && m->contextLength ? QStringLiteral("%1k").arg(m->contextLength / 1024) : QString();
    case FitColumn:
        switch (e.fit) {
        case FitVerdict::Unknown: return !e.error ? QString() : tr("unreadable");
        case FitVerdict::OnGpu: return tr("fits on the GPU");
        case FitVerdict::GpuAndRam: return tr("GPU + RAM");
        case FitVerdict::CpuOnly: return tr("CPU only");
        case FitVerdict::TooBig: return tr("too big");
        }
    }
    return {};
}

QHash<int, QByteArray> ModelLibrary::roleNames() const
{
    return {{Qt::DisplayRole, "display"}, {PathRole, "path"}, {OfferedRole, "offered"},
            {ExistsRole, "exists"},       {FitRole, "fit"},       {LoadingRole, "loading"}};
}

int ModelLibrary::indexOf(const QString &path) const
{
    for (int i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].path == path)
            return i;
    return -1;
}

QString ModelLibrary::pathAt(int row) const
{
    return row >= 0 && row < m_entries.size() ? m_entries[row].path : QString();
}

void ModelLibrary::insertTop(Entry e)
{
    const int existing = indexOf(e.path);
    if (existing >= 0) {
        // Keep what is known about the file; only its place and flags change.
        e.info = m_entries[existing].info;
        e.error = m_entries[existing].error;
        e.fit = m_entries[existing].fit;
        e.projectors = m_entries[existing].projectors; // found by the last scan; none runs now
        if (existing > 0) {
            beginMoveRows({}, existing, existing, {}, 0);
            m_entries.move(existing, 0);
            endMoveRows();
        }
        m_entries[0] = e;
        emit dataChanged(QAbstractTableModel::index(0, 0), QAbstractTableModel::index(0, ColumnCount - 1));
        return;
    }
    beginInsertRows({}, 0, 0);
    m_entries.prepend(e);
    endInsertRows();
    checkFiles();
    // Cap the remembered list; folder entries do not count against it.
    int remembered = 0;
    for (int i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].fromFolder)
            continue;
        if (++remembered > kMaxEntries) {
            beginRemoveRows({}, i, i);
            m_entries.removeAt(i);
            endRemoveRows();
            break;
        }
    }
    rescan(); // inspect the new file
}

void ModelLibrary::addRecent(const QString &path)
{
    insertTop({path, false, false, nullptr, {}, FitVerdict::Unknown});
    save();
}

void ModelLibrary::settingsChanged(const QString &path)
{
    const int row = indexOf(path);
    if (row < 0)
        return;
    m_entries[row].projectorChoice.reset();
    const QModelIndex cell = QAbstractTableModel::index(row, ImagesColumn);
    emit dataChanged(cell, cell);
}

void ModelLibrary::loadStarted(const QString &path)
{
    if (path.isEmpty())
        return;
    loadEnded(false); // a load that never said how it ended (cancelled before it began)
    m_loadingAdded = indexOf(path) < 0;
    m_loading = path;
    m_loadFraction = 0;
    insertTop({path, false, false, nullptr, {}, FitVerdict::Unknown});
}

void ModelLibrary::loadProgress(double fraction)
{
    const int row = indexOf(m_loading);
    if (row < 0 || int(fraction * 100) == int(m_loadFraction * 100))
        return;
    m_loadFraction = std::clamp(fraction, 0.0, 1.0);
    emit dataChanged(QAbstractTableModel::index(row, NameColumn), QAbstractTableModel::index(row, NameColumn));
}

void ModelLibrary::loadEnded(bool loaded)
{
    const QString path = std::exchange(m_loading, QString());
    const int row = indexOf(path);
    if (row < 0)
        return;
    if (!loaded && std::exchange(m_loadingAdded, false)) {
        beginRemoveRows({}, row, row);
        m_entries.removeAt(row);
        endRemoveRows();
        return;
    }
    m_loadingAdded = false;
    emit dataChanged(QAbstractTableModel::index(row, NameColumn), QAbstractTableModel::index(row, NameColumn));
}

void ModelLibrary::offer(const QStringList &paths)
{
    for (auto it = paths.crbegin(); it != paths.crend(); ++it) {
        const int existing = indexOf(*it);
        if (existing >= 0 && !m_entries[existing].offered && !m_entries[existing].fromFolder)
            continue; // already known: leave it where it is
        insertTop({*it, true, false, nullptr, {}, FitVerdict::Unknown});
    }
}

void ModelLibrary::remove(int row)
{
    if (row < 0 || row >= m_entries.size())
        return;
    beginRemoveRows({}, row, row);
    m_entries.removeAt(row);
    endRemoveRows();
    save();
}

void ModelLibrary::save() const
{
    // Offered and folder files are not "recent": only what the user opened is remembered.
    QStringList recent;
    for (const Entry &e : m_entries)
        if (!e.offered && !e.fromFolder)
            recent << e.path;
    AppSettings::setModelLibrary(recent, m_folders);
}

void ModelLibrary::addFolder(const QString &folder)
{
    if (folder.isEmpty() || m_folders.contains(folder))
        return;
    m_folders << folder;
    save();
    rescan();
}

void ModelLibrary::removeFolder(const QString &folder)
{
    if (!m_folders.removeOne(folder))
        return;
    save();
    for (int i = int(m_entries.size()) - 1; i >= 0; --i) {
        if (m_entries[i].fromFolder && m_entries[i].path.startsWith(folder + QLatin1Char('/'))) {
            beginRemoveRows({}, i, i);
            m_entries.removeAt(i);
            endRemoveRows();
        }
    }
}

QString ModelLibrary::visionText(const Entry &e) const
{
    if (!e.projectorChoice) {
        e.projectorChoice = ModelSettingsStore::load(e.path).value_or(ModelSettings{}).projector;
    }
    const QString &choice = *e.projectorChoice;
    if (choice == ModelSettings::kNoProjector)
        return e.projectors.isEmpty() ? QString() : tr("off");
    if (!choice.isEmpty()) {
        for (const auto &c : e.projectors)
            if (c.path == choice)
                return c.precision;
        return QFileInfo(choice).completeBaseName();
    }
    for (const auto &c : e.projectors)
        if (!c.mismatch)
            return c.precision;
    return {};
}

ModelLibrary::FitVerdict ModelLibrary::verdict(const ModelInfo &info, const PlanTarget &target)
{
    FitRequest r;
    r.settings.context.contextSize = std::min<uint32_t>(info.contextLength ? info.contextLength : 8192, 8192);
    r.locks.contextSize = true; // the verdict is about a usable 8k chat, not the longest context
    switch (autoFit(info, r, target).outcome) {
    case FitOutcome::AllOnGpu: return FitVerdict::OnGpu;
    case FitOutcome::ExpertsOnCpu:
    case FitOutcome::LayersOnCpu: return FitVerdict::GpuAndRam;
    case FitOutcome::CpuOnly: return FitVerdict::CpuOnly;
    default: return FitVerdict::TooBig;
    }
}

void ModelLibrary::setTarget(const PlanTarget &target)
{
    m_target = target;
    m_hasTarget = true;
    refit();
}

void ModelLibrary::refit()
{
    if (!m_hasTarget)
        return;
    if (m_fitting.isRunning()) { // one at a time: the newest target follows it
        m_refitAgain = true;
        return;
    }
    QList<QPair<QString, std::shared_ptr<const ModelInfo>>> models;
    for (const Entry &e : m_entries)
        if (e.info)
            models.append({e.path, e.info});
    if (models.isEmpty())
        return;
    m_fitting.setFuture(QtConcurrent::run(workPool(), [models, target = m_target] {
        Verdicts v;
        for (const auto &[path, info] : models)
            v.insert(path, verdict(*info, target));
        return v;
    }));
}

void ModelLibrary::applyFits()
{
    if (m_refitAgain) { // for a target that is no longer the one shown
        m_refitAgain = false;
        refit();
        return;
    }
    const Verdicts verdicts = m_fitting.result();
    for (Entry &e : m_entries)
        e.fit = e.info ? verdicts.value(e.path, e.fit) : FitVerdict::Unknown;
    if (!m_entries.isEmpty())
        emit dataChanged(QAbstractTableModel::index(0, FitColumn),
                         QAbstractTableModel::index(int(m_entries.size()) - 1, FitColumn));
    emit fitsUpdated();
}
