#include "hardwaremonitor.h"

#include "tuningstore.h"
#include "workpool.h"

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

using namespace shoehorn;

HardwareMonitor::HardwareMonitor(QObject *parent) : QObject(parent), m_probe([] { return probeHardware(); })
{
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &HardwareMonitor::refresh);
    connect(&m_watcher, &QFutureWatcher<HardwareInfo>::finished, this, &HardwareMonitor::done);
}

HardwareMonitor::~HardwareMonitor()
{
    m_timer.stop();
    // Not waited for: the probe runs on a copy of m_probe and touches nothing of this object.
}

void HardwareMonitor::watch(bool on)
{
    m_watchers = std::max(0, m_watchers + (on ? 1 : -1));
    if (m_watchers > 0 && !m_timer.isActive()) {
        refresh();
        m_timer.start();
    } else if (m_watchers == 0) {
        m_timer.stop();
    }
}

void HardwareMonitor::hold(bool on)
{
    m_held = on;
    if (!on && m_again) {
        m_again = false;
        refresh();
    }
}

void HardwareMonitor::holdThen(std::function<void()> then)
{
    m_held = true;
    if (m_watcher.isRunning())
        m_afterProbe.push_back(std::move(then));
    else
        then();
}

void HardwareMonitor::refresh()
{
    if (m_held || m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    m_watcher.setFuture(QtConcurrent::run(workPool(), m_probe));
}

void HardwareMonitor::done()
{
    m_current = m_watcher.result();
    m_probed = true;
    emit changed(m_current);
    for (auto &then : std::exchange(m_afterProbe, {}))
        then();
    if (m_again) {
        m_again = false;
        refresh();
    }
}

PlanTarget HardwareMonitor::target(quint64 vramBudgetBytes) const
{
    return targetFromHardware(m_current, vramBudgetBytes);
}

QString HardwareMonitor::machineId() const
{
    return TuningStore::machineId(m_current);
}
