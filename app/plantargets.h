#pragma once

#include "hardware.h"
#include "planner.h"

#include <QList>
#include <QObject>
#include <QStringList>
#include <QString>

#include <optional>
#include <utility>

class LoadedModel;
class HardwareMonitor;

// The machine a plan is for: this computer (its free memory as HardwareMonitor probes it, with
// an optional VRAM budget, and the loaded model's own memory counted as free since a load frees
// it first) or a what-if profile (built in, or the user's own). One job of the offload panel's.
// While a load runs, this computer is the machine as it was when the load began: the memory the
// load takes meanwhile is the plan's own, not another program's.
class PlanTargets : public QObject
{
    Q_OBJECT
public:
    PlanTargets(LoadedModel *model, HardwareMonitor *hardware, QObject *parent = nullptr);

    // Index 0 is this computer; then the built-in and the user's profiles (names as stored).
    QList<std::pair<QString, QString>> profiles() const; // id, name
    int index() const { return m_index; }
    bool isThisComputer() const { return m_index == 0; }
    void setIndex(int index);
    void setVramBudgetMiB(int mib);
    // The remote machines' limits changed (RemoteMachines::limitsChanged): plans of this machine
    // change with them.
    void limitsChanged();
    shoehorn::PlanTarget current() const;
    // Adds a what-if machine (and remembers it); returns its index.
    int addCustomProfile(const shoehorn::HardwareProfile &profile);

    // The last probe (live, also during a load: the gauges' "allocated" parts read it).
    const shoehorn::HardwareInfo &hardware() const;
    // RAM the loaded model holds now; plans count it as free (a load frees the old model first).
    quint64 heldRamBytes() const;
    // Poll free memory while someone looks.
    void watchHardware(bool on);

signals:
    // Another profile, the VRAM budget, or this machine was probed the first time.
    void targetChanged();
    // Free memory of this computer moved (planned for or not).
    void freeMemoryChanged();

private:
    void onStateChanged();
    // What plans of this computer read: the probe from just before the load that runs, or the last.
    const shoehorn::HardwareInfo &planned() const;

    LoadedModel *m_model;
    HardwareMonitor *m_hardware;
    int m_index = 0;
    int m_vramBudgetMiB = 0;
    bool m_probed = false;
    QStringList m_devices; // the last probe's devices, to tell when one joins
    // The machine when the running load began (the first probe, when it began before any).
    std::optional<shoehorn::HardwareInfo> m_atLoadStart;
    bool m_loading = false;
};
