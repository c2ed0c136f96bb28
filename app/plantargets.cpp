#include "plantargets.h"

#include "loadedmodel.h"
#include "hardwaremonitor.h"
#include "profilestore.h"
#include "remotemachines.h"

#include <utility>

using namespace shoehorn;

PlanTargets::PlanTargets(LoadedModel *model, HardwareMonitor *hardware, QObject *parent)
    : QObject(parent), m_model(model), m_hardware(hardware)
{
    connect(m_model, &LoadedModel::stateChanged, this, &PlanTargets::onStateChanged);
    connect(m_hardware, &HardwareMonitor::changed, this, [this](const HardwareInfo &info) {
        if (m_loading && !m_atLoadStart)
            m_atLoadStart = info; // the load began before the first probe: as close as there is
        emit freeMemoryChanged();
        // Not on every probe (free memory moves all the time): the first, and when the devices
        // change (a remote machine joined).
        QStringList devices;
        for (const auto &g : info.gpus)
            devices << QString::fromStdString(g.name + " " + g.description);
        const bool first = !std::exchange(m_probed, true);
        const bool otherDevices = devices != std::exchange(m_devices, devices);
        if (m_index == 0 && (first || otherDevices))
            emit targetChanged();
    });
}

QList<std::pair<QString, QString>> PlanTargets::profiles() const
{
    QList<std::pair<QString, QString>> out;
    for (const auto &p : builtinProfiles())
        out.append({QString::fromStdString(p.id), QString::fromStdString(p.name)});
    for (const auto &p : ProfileStore::customProfiles())
        out.append({QString::fromStdString(p.id), QString::fromStdString(p.name)});
    return out;
}

void PlanTargets::setIndex(int index)
{
    m_index = std::max(0, index);
    emit targetChanged();
}

void PlanTargets::limitsChanged()
{
    if (m_index == 0)
        emit targetChanged();
}

void PlanTargets::setVramBudgetMiB(int mib)
{
    m_vramBudgetMiB = mib;
    emit targetChanged();
}

PlanTarget PlanTargets::current() const
{
    const auto list = profiles();
    if (m_index > 0 && m_index <= list.size()) {
        const auto custom = ProfileStore::customProfiles();
        if (const HardwareProfile *p = findProfile(list[m_index - 1].first.toStdString(), custom)) {
            PlanTarget t = targetFromProfile(*p);
            if (p->vramBytes == 0)
                t.gpus.clear(); // a machine without a GPU
            return t;
        }
    }
    const HardwareInfo &hw = planned();
    PlanTarget t = targetFromHardware(hw, quint64(m_vramBudgetMiB) * MiB);
    // What the loaded model holds is free for any plan: a load frees the old model first. (During
    // a load that is still the old model, against the probe from before the load.)
    if (m_model->hasModel())
        addHeldMemory(t, m_model->model().held, hw.process);
    // A remote machine's own limit (Remote Machines window): what its worker may really use.
    RemoteMachines::applyLimits(t, RemoteMachines::limits());
    t.name = tr("this computer").toStdString();
    return t;
}

int PlanTargets::addCustomProfile(const HardwareProfile &profile)
{
    const QString id = QString::fromStdString(ProfileStore::add(profile));
    const auto list = profiles();
    for (int i = 0; i < list.size(); ++i)
        if (list[i].first == id)
            return i + 1;
    return 0;
}

const HardwareInfo &PlanTargets::hardware() const
{
    return m_hardware->current();
}

const HardwareInfo &PlanTargets::planned() const
{
    return m_atLoadStart ? *m_atLoadStart : m_hardware->current();
}

void PlanTargets::onStateChanged()
{
    const bool loading = m_model->state() == LoadedModel::State::Loading;
    if (loading == std::exchange(m_loading, loading))
        return;
    m_atLoadStart.reset();
    if (loading && m_hardware->hasProbed())
        m_atLoadStart = m_hardware->current();
    if (!loading) {
        m_hardware->refresh(); // the machine after the load, the new model's memory counted as held
        emit freeMemoryChanged();
    }
}

quint64 PlanTargets::heldRamBytes() const
{
    return m_model->hasModel() ? m_model->model().held.ramBytes(hardware().process) : 0;
}

void PlanTargets::watchHardware(bool on)
{
    m_hardware->watch(on);
}
