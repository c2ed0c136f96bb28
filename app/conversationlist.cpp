#include "conversationlist.h"

#include "workpool.h"

#include <QtConcurrent/QtConcurrentRun>

ConversationList::ConversationList(ChatStore *store, QObject *parent) : QAbstractListModel(parent), m_store(store)
{
    connect(&m_searching, &QFutureWatcher<Found>::finished, this, &ConversationList::onSearched);
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
    ++m_refreshes;
    if (!m_store || m_search.isEmpty()) { // the list alone: an index, milliseconds
        show(m_store ? m_store->conversations() : QList<ChatStore::Conversation>{});
        return;
    }
    if (!m_searching.isRunning())
        startSearch(); // else the running one's answer is stale: it starts this one when it ends
}

void ConversationList::startSearch()
{
    m_searching.setFuture(QtConcurrent::run(workPool(), [path = m_store->path(), search = m_search, n = m_refreshes] {
        ChatStore store;
        if (!store.open(path))
            return Found{n, {}};
        return Found{n, store.conversations(search)};
    }));
}

void ConversationList::onSearched()
{
    const Found found = m_searching.result();
    if (found.first != m_refreshes) {
        if (!m_search.isEmpty())
            startSearch();
        return;
    }
    show(found.second);
    emit searched();
}

void ConversationList::show(const QList<ChatStore::Conversation> &items)
{
    beginResetModel();
    m_items = items;
    endResetModel();
}
