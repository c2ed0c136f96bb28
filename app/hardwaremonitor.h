#pragma once

#include "hardware.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <functional>
#include <vector>

// Free GPU and RAM memory, probed off the GUI thread about once a second while someone watches.
//
// The one engine call that runs outside the inference worker, on purpose: the worker is busy
// for the whole of an answer, and the gauges must follow other programs meanwhile.
// probeHardware() is safe there: it reads ggml's device registry (built once, under a static
// initialiser) and asks each device for its free memory (CUDA: cudaMemGetInfo, thread-safe; CPU:
// /proc/meminfo). It loads no model and touches no context. tst_hardwaremonitor probes while
// the worker generates.
class HardwareMonitor : public QObject
{
    Q_OBJECT
public:
    using Probe = std::function<shoehorn::HardwareInfo()>;
    explicit HardwareMonitor(QObject *parent = nullptr);
    ~HardwareMonitor() override;

    void setProbe(Probe probe) { m_probe = std::move(probe); } // test seam
    void setInterval(int ms) { m_timer.setInterval(ms); }      // default: a second
    bool hasProbed() const { return m_probed; }
    const shoehorn::HardwareInfo &current() const { return m_current; }
    // Polls while at least one watcher is active (a visible panel); refresh() probes once.
    void watch(bool on);
    void refresh();
    // While held, no probe starts (one asked for runs on release): ggml's device list is being
    // changed (remote machines attaching on the inference thread).
    void hold(bool on);
    // Holds, and runs `then` once no probe is in flight (at once when none is): a remote machine
    // attaching while the app runs must not change ggml's device list under a probe.
    void holdThen(std::function<void()> then);
    // This machine as a plan target; vramBudget > 0 caps each GPU.
    shoehorn::PlanTarget target(quint64 vramBudgetBytes = 0) const;
    QString machineId() const;

signals:
    void changed(const shoehorn::HardwareInfo &info);

private:
    void done();

    Probe m_probe;
    QTimer m_timer;
    QFutureWatcher<shoehorn::HardwareInfo> m_watcher;
    shoehorn::HardwareInfo m_current;
    bool m_probed = false;
    bool m_again = false;
    bool m_held = false;
    int m_watchers = 0;
    std::vector<std::function<void()>> m_afterProbe;
};
