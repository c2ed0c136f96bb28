#pragma once

#include <QAbstractListModel>
#include <QStringList>

// The models the user has opened, plus models offered to them (files handed over by a
// second launch). Stored in QSettings; GUI thread only.
class ModelLibrary : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles {
        PathRole = Qt::UserRole + 1,
        OfferedRole,
        ExistsRole,
    };

    explicit ModelLibrary(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    // A model was opened: move it to the top, no longer just offered.
    void addRecent(const QString &path);
    // Files to suggest without opening them now.
    void offer(const QStringList &paths);
    void remove(int row);
    QString pathAt(int row) const;
    int indexOf(const QString &path) const;

    static constexpr int kMaxEntries = 30;

private:
    struct Entry {
        QString path;
        bool offered = false;
    };
    void insertTop(const Entry &e);
    void save() const;
    QList<Entry> m_entries;
};
