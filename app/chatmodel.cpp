#include "chatmodel.h"

#include <QVariant>

ChatModel::ChatModel(QObject *parent) : QAbstractListModel(parent) {}

int ChatModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_messages.size());
}

QVariant ChatModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message &m = m_messages.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case ContentRole: return m.content;
    case RoleRole: return m.role;
    case ReasoningRole: return m.reasoning;
    case StateRole: return QVariant::fromValue(m.state);
    case StatsRole: return m.hasStats ? QVariant::fromValue(m.stats) : QVariant();
    default: return {};
    }
}

QHash<int, QByteArray> ChatModel::roleNames() const
{
    return {{RoleRole, "role"},
            {ContentRole, "content"},
            {ReasoningRole, "reasoning"},
            {StateRole, "state"},
            {StatsRole, "stats"}};
}

int ChatModel::appendMessage(const Message &message)
{
    const int row = int(m_messages.size());
    beginInsertRows({}, row, row);
    m_messages.append(message);
    endInsertRows();
    return row;
}

void ChatModel::appendText(int row, const QString &content, const QString &reasoning)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    QList<int> roles;
    if (!content.isEmpty()) {
        m.content += content;
        roles << ContentRole << Qt::DisplayRole;
    }
    if (!reasoning.isEmpty()) {
        m.reasoning += reasoning;
        roles << ReasoningRole;
    }
    if (!roles.isEmpty())
        emit dataChanged(index(row), index(row), roles);
}

void ChatModel::finish(int row, State state, const shoehorn::GenerationStats *stats)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    m.state = state;
    if (stats) {
        m.stats = *stats;
        m.hasStats = true;
    }
    emit dataChanged(index(row), index(row), {StateRole, StatsRole});
}

void ChatModel::clear()
{
    if (m_messages.isEmpty())
        return;
    beginResetModel();
    m_messages.clear();
    endResetModel();
}

std::vector<shoehorn::ChatMessage> ChatModel::history(const QString &systemPrompt) const
{
    std::vector<shoehorn::ChatMessage> out;
    if (!systemPrompt.isEmpty())
        out.push_back({"system", systemPrompt.toStdString(), {}});
    for (const Message &m : m_messages) {
        if (m.state == State::Streaming || m.state == State::Failed)
            continue;
        if (m.role == QLatin1String("assistant") && m.content.isEmpty())
            continue;
        out.push_back({m.role.toStdString(), m.content.toStdString(), m.reasoning.toStdString()});
    }
    return out;
}
