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
// The machines' devices join ggml's when Shoehorn starts (attachRemembered(), before anything
// else reads the device list): ggml's device registry cannot change under a running load or probe.
class RemoteMachines : public QObject
{
    Q_OBJECT
public:
    // `attached`: what attachRemembered() found at start.
    explicit RemoteMachines(const shoehorn::AttachedRemotes &attached, QObject *parent = nullptr);
    ~RemoteMachines() override;

    RemoteMachineModel *model() { return &m_model; }
    // Empty, or why the address is not one (host:port).
    QString add(const QString &endpoint);
    void remove(int row);
    void test(int row);

    static QStringList remembered();
    // Probes the remembered machines in helper processes and attaches those that answer (a refused
    // connection fails at once, a silent port after 5 s). Call once, before the hardware monitor
    // and the inference thread start.
    static shoehorn::AttachedRemotes attachRemembered(const QString &helper);

signals:
    void tested(int row);

private:
    void save() const;
    RemoteMachineModel m_model;
    std::vector<std::unique_ptr<QFutureWatcher<shoehorn::Result<shoehorn::RemoteMachine>>>> m_tests;
};
