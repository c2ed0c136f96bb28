#include "remotemachines.h"

#include "appsettings.h"
#include "filesafety.h"
#include "units.h"
#include "workpool.h"

#include <QSettings>
#include <QtConcurrent>

using namespace shoehorn;

namespace {
const QString kKey = QStringLiteral("remote/machines");
const QString kLimitsKey = QStringLiteral("remote/limitsMiB");

// Why a machine did not answer, as its row shows it: the engine's words without the address the
// row names already.
QString why(const RemoteMachineModel::Row &r)
{
    const std::string prefix = r.endpoint.toStdString() + ": ";
    const std::string &d = r.error.detail;
    return QString::fromStdString(d.rfind(prefix, 0) == 0 ? d.substr(prefix.size()) : d);
}
} // namespace

int RemoteMachineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RemoteMachineModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RemoteMachineModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()))
        return {};
    const Row &r = m_rows[size_t(index.row())];
    if (role == Qt::EditRole && index.column() == Limit)
        return int(r.limitMiB); // an int: the default editor is a spin box
    if (role == Qt::ToolTipRole && index.column() == Limit)
        return tr("The most the plan may use on each device of this machine (double-click to change; 0: what "
                  "the worker reports as free). Set it when the worker may use less than its machine's free "
                  "memory, or to keep room for other programs there.");
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Address: return r.endpoint;
    case State:
        switch (r.status) {
        case Status::InUse: return tr("in use");
        case Status::Added: return tr("added");
        case Status::Testing: return tr("asking…");
        case Status::Answered: return tr("answers; joining…");
        case Status::Unreachable: return tr("not reachable");
        }
        return {};
    case Devices: {
        if (r.status == Status::Unreachable)
            return why(r); // where the devices would be
        QStringList parts;
        for (const auto &d : r.devices)
            parts << tr("%1: %2 free of %3")
                         .arg(QString::fromStdString(d.name), bytesText(d.freeBytes), bytesText(d.totalBytes));
        return parts.join(QStringLiteral("; "));
    }
    case Limit:
        return r.limitMiB ? bytesText(r.limitMiB * 1024 * 1024) : tr("what it reports");
    case RoundTrip:
        return r.devices.empty() ? QString() : tr("%1 ms").arg(r.roundTripMs, 0, 'f', 1);
    }
    return {};
}

Qt::ItemFlags RemoteMachineModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Limit)
        f |= Qt::ItemIsEditable;
    return f;
}

bool RemoteMachineModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || index.column() != Limit || index.row() >= int(m_rows.size()))
        return false;
    bool ok = false;
    const qlonglong mib = value.toString().trimmed().toLongLong(&ok);
    if (!ok || mib < 0 || mib > 16 * 1024 * 1024)
        return false;
    m_rows[size_t(index.row())].limitMiB = quint64(mib);
    emit dataChanged(index, index);
    emit limitEdited(index.row());
    return true;
}

QVariant RemoteMachineModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Address: return tr("Address");
    case State: return tr("State");
    case Devices: return tr("Devices");
    case Limit: return tr("Use at most");
    case RoundTrip: return tr("Round trip");
    }
    return {};
}

int RemoteMachineModel::find(const QString &endpoint) const
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].endpoint == endpoint)
            return int(i);
    return -1;
}

void RemoteMachineModel::append(Row row)
{
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
    m_rows.push_back(std::move(row));
    endInsertRows();
}

void RemoteMachineModel::removeAt(int row)
{
    beginRemoveRows({}, row, row);
    m_rows.erase(m_rows.begin() + row);
    endRemoveRows();
}

void RemoteMachineModel::update(int row, Row value)
{
    value.limitMiB = m_rows[size_t(row)].limitMiB; // a state change keeps the user's limit
    m_rows[size_t(row)] = std::move(value);
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

RemoteMachines::RemoteMachines(QObject *parent) : QObject(parent)
{
    const auto saved = limits();
    for (const QString &e : remembered()) {
        const auto limit = saved.find(e.toStdString());
        m_model.append({e, RemoteMachineModel::Status::Testing, {}, 0, {},
                        limit == saved.end() ? 0 : limit->second / (1024 * 1024)});
    }
    connect(&m_model, &RemoteMachineModel::limitEdited, this, [this] {
        save();
        emit limitsChanged();
    });
}

void RemoteMachines::setLimit(int row, quint64 mib)
{
    m_model.setData(m_model.index(row, RemoteMachineModel::Limit), mib);
}

std::map<std::string, uint64_t> RemoteMachines::limits()
{
    std::map<std::string, uint64_t> out;
    const QVariantMap saved = AppSettings::value(kLimitsKey).toMap();
    for (auto it = saved.begin(); it != saved.end(); ++it)
        if (const quint64 mib = it.value().toULongLong(); mib > 0)
            out[it.key().toStdString()] = mib * 1024 * 1024;
    return out;
}

void RemoteMachines::applyLimits(PlanTarget &target, const std::map<std::string, uint64_t> &limits)
{
    for (auto &g : target.gpus) {
        const auto limit = g.remote ? limits.find(g.description) : limits.end();
        if (limit != limits.end())
            capDevice(g, limit->second);
    }
}

void RemoteMachines::attached(const AttachedRemotes &result)
{
    for (const auto &m : result.machines)
        if (const int row = m_model.find(QString::fromStdString(m.endpoint)); row >= 0)
            m_model.update(row, {QString::fromStdString(m.endpoint), RemoteMachineModel::Status::InUse, m.devices,
                                 m.roundTripMs, {}});
    for (const auto &f : result.failed)
        if (const int row = m_model.find(QString::fromStdString(f.endpoint)); row >= 0)
            m_model.update(row, {QString::fromStdString(f.endpoint), RemoteMachineModel::Status::Unreachable, {}, 0, f.error});
}

// Not waited for (a probe may take its 5 s): each runs on copies of the endpoint and helper path and
// touches nothing of this object but the shared stop flag; its answer is dropped with the watcher.
RemoteMachines::~RemoteMachines()
{
    stopTests();
}

void RemoteMachines::stopTests()
{
    m_stop->store(true);
    m_stop = std::make_shared<std::atomic<bool>>(false); // for tests started after this
}

RemoteMachines::AddResult RemoteMachines::add(const QString &endpoint)
{
    const QString e = endpoint.trimmed();
    auto parsed = parseEndpoints(e.toStdString());
    if (!parsed || parsed->size() != 1)
        return AddResult::NotAnAddress;
    if (m_model.find(e) >= 0)
        return AddResult::AlreadyListed;
    m_model.append({e, RemoteMachineModel::Status::Added, {}, 0, {}});
    save();
    test(m_model.rowCount() - 1);
    return AddResult::Added;
}

void RemoteMachines::remove(int row)
{
    if (row < 0 || row >= m_model.rowCount())
        return;
    m_model.removeAt(row);
    save();
    emit limitsChanged();
}

void RemoteMachines::test(int row)
{
    if (row < 0 || row >= m_model.rowCount())
        return;
    RemoteMachineModel::Row r = m_model.rows()[size_t(row)];
    const bool inUse = r.status == RemoteMachineModel::Status::InUse;
    r.status = RemoteMachineModel::Status::Testing;
    m_model.update(row, r);
    const QString helper = fileSafetyHelper(); // shoehorn-cli beside the app, as the file check finds it
    auto watcher = std::make_unique<QFutureWatcher<Result<RemoteMachine>>>();
    auto *w = watcher.get();
    connect(w, &QFutureWatcherBase::finished, this, [this, w, endpoint = r.endpoint, inUse] {
        const int at = m_model.find(endpoint); // rows may have moved meanwhile
        const auto result = w->result();
        if (!result && result.error().code == ErrorCode::Cancelled)
            return; // stopped (quitting): it says nothing about the machine
        if (at >= 0) {
            RemoteMachineModel::Row done{endpoint, RemoteMachineModel::Status::Unreachable, {}, 0, {}};
            if (result) {
                done.status = inUse ? RemoteMachineModel::Status::InUse : RemoteMachineModel::Status::Answered;
                done.devices = result->devices;
                done.roundTripMs = result->roundTripMs;
            } else {
                done.error = result.error();
            }
            m_model.update(at, done);
            emit tested(at);
            if (done.status == RemoteMachineModel::Status::Answered)
                emit attachRequested(endpoint);
        }
    });
    w->setFuture(QtConcurrent::run(workPool(), [e = r.endpoint.toStdString(), h = helper.toStdString(), stop = m_stop] {
        return probeRemote(e, h, 5000, stop.get());
    }));
    m_tests.push_back(std::move(watcher));
}

QStringList RemoteMachines::remembered()
{
    return AppSettings::value(kKey).toStringList();
}

void RemoteMachines::save() const
{
    QStringList list;
    QVariantMap limits;
    for (const auto &r : m_model.rows()) {
        list << r.endpoint;
        if (r.limitMiB > 0)
            limits[r.endpoint] = r.limitMiB;
    }
    AppSettings::setValueInBackground(kKey, list);
    AppSettings::setValueInBackground(kLimitsKey, limits);
}
