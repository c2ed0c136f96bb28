#pragma once

#include "chatstore.h"

#include <QAbstractListModel>

// The stored conversations, newest first, filtered by a search text. GUI thread only.
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
    QString search() const { return m_search; }
    qint64 idAt(int row) const;
    int rowOf(qint64 id) const;
    // Whether any chat is stored (whatever the search shows), and a chat's model file.
    bool isEmpty() const;
    QString modelPathOf(qint64 id) const;

public slots:
    void refresh();

private:
    ChatStore *m_store;
    QString m_search;
    QList<ChatStore::Conversation> m_items;
};
