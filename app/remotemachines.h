#pragma once

#include "remote.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QObject>
#include <QStringList>

#include "hardware.h"

#include <atomic>
#include <map>
#include <memory>
#include <vector>

// The remote machines (llama.cpp RPC workers, `shoehorn-cli rpc-worker`) the user added, one row
// each: its address, whether it is in use, its devices and their memory, the round trip.
class RemoteMachineModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Address, State, Devices, Limit, RoundTrip, ColumnCount };
    enum class Status { InUse, Added, Testing, Answered, Unreachable };
    struct Row {
        QString endpoint;
        Status status = Status::Added;
        std::vector<shoehorn::RemoteDevice> devices;
        double roundTripMs = 0;
        shoehorn::Error error; // Unreachable: why (RemoteFailed, "endpoint: why")
        // The most the plan may use on each of its devices, in MiB; 0: what the worker reports
        // as free (its whole machine's, which a worker limited another way cannot use).
        quint64 limitMiB = 0;
    };

    using QAbstractTableModel::QAbstractTableModel;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    // The Limit column takes MiB (EditRole: a number, or text such as "4096"); a negative or
    // non-numeric value is refused.
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    const std::vector<Row> &rows() const { return m_rows; }
    int find(const QString &endpoint) const; // -1: none
    void append(Row row);
    void removeAt(int row);
    void update(int row, Row value);

signals:
    void limitEdited(int row);

private:
    std::vector<Row> m_rows;
};

// What the Remote machines window does without widgets: the remembered list (QSettings), adding
// and removing, and "Test connection" (the worker asked in a helper process, off the GUI thread).
// The machines' devices join ggml's on the inference thread, while the hardware monitor holds
// (AppCore): the remembered ones when Shoehorn starts, before any load; one added later as soon
// as it answers its test, between loads. ggml's device list cannot change under a running load
// or probe; a model already loaded keeps its devices, the next load plans with the new ones.
class RemoteMachines : public QObject
{
    Q_OBJECT
public:
    // The remembered machines, "asking…" until attached() says how their attaching went.
    explicit RemoteMachines(QObject *parent = nullptr);
    ~RemoteMachines() override;

    RemoteMachineModel *model() { return &m_model; }
    // Added (and its test started), or why not; the words are the dialog's.
    enum class AddResult { Added, NotAnAddress, AlreadyListed };
    AddResult add(const QString &endpoint);
    void remove(int row);
    void test(int row);
    // Ends the tests under way (their helpers killed within 50 ms; their rows stay as they
    // were): Shoehorn is quitting, and waits for the work pool (AppCore::shutdown). Also done
    // when the list goes.
    void stopTests();

    static QStringList remembered();
    // Each remembered machine's memory limit in bytes, by its address (only those with one).
    static std::map<std::string, uint64_t> limits();
    // Caps the remote devices of `target` (GpuInfo::remote; llama.cpp names each by its address)
    // at their machine's limit.
    static void applyLimits(shoehorn::PlanTarget &target, const std::map<std::string, uint64_t> &limits);
    void setLimit(int row, quint64 mib);
    // What attaching the remembered machines at start found (Worker::attachRemotes, on the
    // inference thread): in use, or why not.
    void attached(const shoehorn::AttachedRemotes &result);

signals:
    void tested(int row);
    // A machine that is not in use answered its test: join its devices now (AppCore queues the
    // attach on the inference thread; attached() says how it went).
    void attachRequested(const QString &endpoint);
    void limitsChanged(); // plans of this machine change with them

private:
    void save() const;
    RemoteMachineModel m_model;
    std::vector<std::unique_ptr<QFutureWatcher<shoehorn::Result<shoehorn::RemoteMachine>>>> m_tests;
    // Shared with the tests running on the pool, which may outlive this object.
    std::shared_ptr<std::atomic<bool>> m_stop = std::make_shared<std::atomic<bool>>(false);
};
