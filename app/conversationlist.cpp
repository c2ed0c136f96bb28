#include "conversationlist.h"

ConversationList::ConversationList(ChatStore *store, QObject *parent) : QAbstractListModel(parent), m_store(store)
{
    refresh();
}

int ConversationList::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant ConversationList::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &c = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole: return c.title;
    case Qt::ToolTipRole: return QLocale().toString(c.updated.toLocalTime(), QLocale::ShortFormat);
    case IdRole: return c.id;
    case ModelPathRole: return c.modelPath;
    default: return {};
    }
}

QHash<int, QByteArray> ConversationList::roleNames() const
{
    return {{Qt::DisplayRole, "title"}, {IdRole, "id"}, {ModelPathRole, "modelPath"}};
}

void ConversationList::setSearch(const QString &text)
{
    if (text == m_search)
        return;
    m_search = text;
    refresh();
}

bool ConversationList::isEmpty() const
{
    return m_store->conversations().isEmpty();
}

QString ConversationList::modelPathOf(qint64 id) const
{
    return m_store->conversation(id).modelPath;
}

qint64 ConversationList::idAt(int row) const
{
    return row >= 0 && row < m_items.size() ? m_items[row].id : 0;
}

int ConversationList::rowOf(qint64 id) const
{
    for (int i = 0; i < m_items.size(); ++i)
        if (m_items[i].id == id)
            return i;
    return -1;
}

void ConversationList::refresh()
{
    beginResetModel();
    m_items = m_store ? m_store->conversations(m_search) : QList<ChatStore::Conversation>{};
    endResetModel();
}
