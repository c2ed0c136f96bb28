#pragma once

#include "chatstore.h"

#include <QAbstractListModel>
#include <QFutureWatcher>

// The stored conversations, newest first, filtered by a search text. GUI thread only. A search
// reads every message's text (70 ms for a 40 MB history with no match): it runs on the work pool
// through a connection of its own, the list showing what it showed until the answer comes; one
// search at a time, an answer for a text no longer asked for is dropped.
class ConversationList : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles { IdRole = Qt::UserRole + 1, ModelPathRole };

    explicit ConversationList(ChatStore *store, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    void setSearch(const QString &text);
    bool searching() const { return m_searching.isRunning(); }
    QString search() const { return m_search; }
    qint64 idAt(int row) const;
    int rowOf(qint64 id) const;
    // Whether any chat is stored (whatever the search shows), and a chat's model file.
    bool isEmpty() const;
    QString modelPathOf(qint64 id) const;

public slots:
    void refresh();

signals:
    void searched(); // a search's answer is shown

private:
    using Found = QPair<quint64, QList<ChatStore::Conversation>>; // for the refresh numbered so
    void show(const QList<ChatStore::Conversation> &items);
    void startSearch();
    void onSearched();

    ChatStore *m_store;
    QString m_search;
    QList<ChatStore::Conversation> m_items;
    quint64 m_refreshes = 0;
    QFutureWatcher<Found> m_searching;
};
