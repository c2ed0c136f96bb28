#include "modellibrary.h"

#include <QFileInfo>
#include <QSettings>

ModelLibrary::ModelLibrary(QObject *parent) : QAbstractListModel(parent)
{
    const QStringList recent = QSettings().value(QStringLiteral("models/recent")).toStringList();
    for (const QString &p : recent)
        if (m_entries.size() < kMaxEntries)
            m_entries.append({p, false});
}

int ModelLibrary::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

QVariant ModelLibrary::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return QFileInfo(e.path).fileName();
    case Qt::ToolTipRole:
    case PathRole: return e.path;
    case OfferedRole: return e.offered;
    case ExistsRole: return QFileInfo::exists(e.path);
    default: return {};
    }
}

QHash<int, QByteArray> ModelLibrary::roleNames() const
{
    return {{Qt::DisplayRole, "name"}, {PathRole, "path"}, {OfferedRole, "offered"}, {ExistsRole, "exists"}};
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

void ModelLibrary::insertTop(const Entry &e)
{
    const int existing = indexOf(e.path);
    if (existing == 0) {
        m_entries[0] = e;
        emit dataChanged(index(0), index(0));
        return;
    }
    if (existing > 0) {
        beginMoveRows({}, existing, existing, {}, 0);
        m_entries.move(existing, 0);
        endMoveRows();
        m_entries[0] = e;
        emit dataChanged(index(0), index(0));
        return;
    }
    beginInsertRows({}, 0, 0);
    m_entries.prepend(e);
    endInsertRows();
    if (m_entries.size() > kMaxEntries) {
        const int last = int(m_entries.size()) - 1;
        beginRemoveRows({}, last, last);
        m_entries.removeLast();
        endRemoveRows();
    }
}

void ModelLibrary::addRecent(const QString &path)
{
    insertTop({path, false});
    save();
}

void ModelLibrary::offer(const QStringList &paths)
{
    for (auto it = paths.crbegin(); it != paths.crend(); ++it) {
        const int existing = indexOf(*it);
        if (existing >= 0 && !m_entries[existing].offered)
            continue; // already known: leave it where it is
        insertTop({*it, true});
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
    // Offered files are suggestions of this session only.
    QStringList recent;
    for (const Entry &e : m_entries)
        if (!e.offered)
            recent << e.path;
    QSettings().setValue(QStringLiteral("models/recent"), recent);
}
