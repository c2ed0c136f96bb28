#pragma once

#include "remote.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include <memory>
#include <vector>

// The remote machines (llama.cpp RPC workers, `shoehorn-cli rpc-worker`) the user added, one row
// each: its address, whether it is in use, its devices and their memory, the round trip.
class RemoteMachineModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Address, State, Devices, RoundTrip, ColumnCount };
    enum class Status { InUse, Added, Testing, Answered, Unreachable };
    struct Row {
        QString endpoint;
        Status status = Status::Added;
        std::vector<shoehorn::RemoteDevice> devices;
        double roundTripMs = 0;
        QString detail; // Unreachable: why
    };

    using QAbstractTableModel::QAbstractTableModel;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    const std::vector<Row> &rows() const { return m_rows; }
    int find(const QString &endpoint) const; // -1: none
    void append(Row row);
    void removeAt(int row);
    void update(int row, Row value);

private:
    std::vector<Row> m_rows;
};

// What the Remote machines window does without widgets: the remembered list (QSettings), adding
// and removing, and "Test connection" (the worker asked in a helper process, off the GUI thread).
// The machines' devices join ggml's when Shoehorn starts, on the inference thread before any
// load, while the hardware monitor holds (AppCore): ggml's device list cannot change under a
// running load or probe.
class RemoteMachines : public QObject
{
    Q_OBJECT
public:
    // The remembered machines, "asking…" until attached() says how their attaching went.
    explicit RemoteMachines(QObject *parent = nullptr);
    ~RemoteMachines() override;

    RemoteMachineModel *model() { return &m_model; }
    // Empty, or why the address is not one (host:port).
    QString add(const QString &endpoint);
    void remove(int row);
    void test(int row);

    static QStringList remembered();
    // What attaching the remembered machines at start found (Worker::attachRemotes, on the
    // inference thread): in use, or why not.
    void attached(const shoehorn::AttachedRemotes &result);

signals:
    void tested(int row);

private:
    void save() const;
    RemoteMachineModel m_model;
    std::vector<std::unique_ptr<QFutureWatcher<shoehorn::Result<shoehorn::RemoteMachine>>>> m_tests;
};
