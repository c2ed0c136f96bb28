#include "offloadcontroller.h"

#include "apicontroller.h"
#include "appsettings.h"
#include "chatcontroller.h"
#include "hardwaremonitor.h"
#include "planner.h"
#include "profilestore.h"
#include "servercommand.h"
#include "visioncontroller.h"

#include <QtConcurrent/QtConcurrentRun>

using namespace shoehorn;

OffloadController::OffloadController(ChatController *chat, QObject *parent)
    : QObject(parent), m_chat(chat), m_settings(chat->modelSettings())
{
    m_exactDelay.setSingleShot(true);
    m_exactDelay.setInterval(700);
    connect(&m_exactDelay, &QTimer::timeout, this, &OffloadController::startExactCheck);
    connect(&m_inspect, &QFutureWatcher<Inspected>::finished, this, &OffloadController::inspected);
    connect(m_chat->hardware(), &HardwareMonitor::changed, this, [this] {
        if (m_targetIndex != 0)
            return;
        // Free memory moved: the gauges follow; llama.cpp's buffer sizes (the dry run) did not.
        replan(false);
        if (!std::exchange(m_probed, true))
            emit targetChanged(); // not on every probe: free memory moves all the time
    });
    connect(m_chat, &ChatController::modelLoaded, this, &OffloadController::onModelLoaded);
    connect(m_chat->api(), &ApiController::stateChanged, this, [this] { replan(); });
    connect(m_chat->vision(), &VisionController::factsReady, this, [this] { replan(); });
    connect(m_chat, &ChatController::modelSettingsChanged, this, &OffloadController::onControllerSettings);
    connect(m_chat->session(), &InferenceSession::exactPlanFinished, this, [this](const ExactCheck &c) {
        m_exactRunning = false;
        // The user switched to a profile (or away from the model) while it ran: stale.
        m_exact.reset();
        if (m_targetIndex == 0 && m_info)
            m_exact = c;
        emit exactCheckChanged();
    });
}

OffloadController::~OffloadController()
{
    m_inspect.waitForFinished(); // reads a GGUF header: short
}

void OffloadController::setModelPath(const QString &path)
{
    if (path == m_path && (m_info || inspecting()))
        return;
    m_path = path;
    m_hasMeasured = false;
    m_lastFit.reset();
    m_info.reset();
    m_inspectError.clear();
    m_exact.reset();
    if (inspecting()) {
        m_inspectAgain = true;
    } else {
        // GGUF parsing only (ggml's gguf reader, no backend): safe off the inference thread.
        m_inspectPending = true;
        m_inspect.setFuture(QtConcurrent::run([path] {
            Inspected out{path, std::nullopt, {}};
            auto r = inspectModel(path.toStdString());
            if (r)
                out.info = std::move(*r);
            else
                out.error = QString::fromStdString(r.error().detail);
            return out;
        }));
    }
    emit modelChanged();
    replan();
}

void OffloadController::inspected()
{
    const Inspected r = m_inspect.result();
    m_inspectPending = false;
    if (m_inspectAgain || r.path != m_path) {
        m_inspectAgain = false;
        const QString path = m_path;
        m_path.clear();
        setModelPath(path);
        return;
    }
    m_info = r.info;
    m_inspectError = r.error;
    m_settings = isLoadedModel() ? m_chat->modelSettings()
                                 : AppSettings::forModel(m_path, m_chat->modelSettings(),
                                                         m_chat->hasModel() ? m_chat->model().path : QString(),
                                                         m_info ? m_info->contextLength : 0);
    emit modelChanged();
    emit settingsChanged();
    replan();
}

bool OffloadController::isLoadedModel() const
{
    return m_chat->hasModel() && m_chat->model().path == m_path;
}

const HardwareInfo &OffloadController::hardware() const
{
    return m_chat->hardware()->current();
}

quint64 OffloadController::heldRamBytes() const
{
    return m_chat->hasModel() ? m_chat->model().held.ramBytes(hardware().process) : 0;
}

OffloadController::RamParts OffloadController::ramParts() const
{
    RamParts r;
    if (!m_info)
        return r;
    r.plannedAnonymous = m_plan.anonymousBytes();
    r.plannedFile = m_plan.mmapResidentBytes;
    const ProcessMemory &now = hardware().process;
    const HeldMemory &held = m_chat->model().held;
    if (isLoadedModel() && now.known && held.before.known) {
        r.loaded = true;
        r.actualAnonymous = held.ramBytes(now);
        r.actualFile = now.fileBytes > held.before.fileBytes ? now.fileBytes - held.before.fileBytes : 0;
    }
    return r;
}

void OffloadController::watchHardware(bool on)
{
    m_chat->hardware()->watch(on);
}

QList<std::pair<QString, QString>> OffloadController::profiles() const
{
    QList<std::pair<QString, QString>> out;
    for (const auto &p : builtinProfiles())
        out.append({QString::fromStdString(p.id), QString::fromStdString(p.name)});
    for (const auto &p : ProfileStore::customProfiles())
        out.append({QString::fromStdString(p.id), QString::fromStdString(p.name)});
    return out;
}

void OffloadController::setTarget(int index)
{
    m_targetIndex = std::max(0, index);
    replan();
    emit targetChanged();
}

void OffloadController::setVramBudgetMiB(int mib)
{
    m_vramBudgetMiB = mib;
    replan();
    emit targetChanged();
}

PlanTarget OffloadController::currentTarget() const
{
    const auto list = profiles();
    if (m_targetIndex > 0 && m_targetIndex <= list.size()) {
        const auto custom = ProfileStore::customProfiles();
        if (const HardwareProfile *p = findProfile(list[m_targetIndex - 1].first.toStdString(), custom)) {
            PlanTarget t = targetFromProfile(*p);
            if (p->vramBytes == 0)
                t.gpus.clear(); // a machine without a GPU
            return t;
        }
    }
    PlanTarget t = m_chat->hardware()->target(quint64(m_vramBudgetMiB) * MiB);
    // What the loaded model holds is free for any plan: a load frees the old model first.
    if (m_chat->hasModel())
        addHeldMemory(t, m_chat->model().held, m_chat->hardware()->current().process);
    t.name = tr("this computer").toStdString();
    return t;
}

int OffloadController::addCustomProfile(const HardwareProfile &profile)
{
    const QString id = QString::fromStdString(ProfileStore::add(profile));
    const auto list = profiles();
    for (int i = 0; i < list.size(); ++i)
        if (list[i].first == id)
            return i + 1;
    return 0;
}

void OffloadController::setSettings(const ModelSettings &s)
{
    m_lastFit.reset();
    m_settings = s;
    // Settings of the loaded model go to the controller (and are remembered for that file);
    // for another model they are remembered for that file only.
    m_updating = true;
    if (isLoadedModel())
        m_chat->setModelSettings(s);
    else if (!m_path.isEmpty())
        ModelSettingsStore::save(m_path, s);
    m_updating = false;
    replan();
}

void OffloadController::onControllerSettings()
{
    if (m_updating || !isLoadedModel())
        return;
    m_settings = m_chat->modelSettings();
    emit settingsChanged();
    replan();
}

PlanSettings OffloadController::planSettings() const
{
    PlanSettings s{m_settings.load, m_settings.context, 1};
    // The model's one context: the chat's slot and the local API's in one KV cache, the same
    // memory with the API on or off.
    s.serverLoop = true;
    if (const ApiController *api = m_chat->api())
        s.apiSlots = api->apiSlots();
    // The vision projector the model will use: its weights and compute buffer (llama.cpp's own
    // dry run of it), on the GPU like llama.cpp unless turned off or nothing is offloaded. Found
    // on a pool thread: the plan counts it once it is known (factsReady replans).
    if (const auto f = m_chat->vision()->facts(m_path, m_settings.projector); f && !f->projector.isEmpty()) {
        s.projectorOnGpu = m_settings.projectorOffload && m_settings.load.gpuLayers != 0;
        s.projectorBytes = f->bytes(s.projectorOnGpu);
    }
    return s;
}

OffloadController::Images OffloadController::images() const
{
    Images out;
    const auto f = m_chat->vision()->facts(m_path, m_settings.projector);
    if (!f || f->projector.isEmpty())
        return out;
    const PlanSettings s = planSettings();
    out.projector = f->projector;
    out.onGpu = s.projectorOnGpu && !m_plan.gpus.empty(); // no GPU planned for: it runs on the CPU
    out.precision = f->precision;
    out.tokens1024 = f->tokens1024;
    return out;
}

void OffloadController::replan(bool checkAgain)
{
    m_plan = m_info ? analyticPlan(*m_info, planSettings(), currentTarget())
                    : MemoryPlan{};
    if (!checkAgain) {
        emit planChanged();
        return;
    }
    // The dry run measures this computer's devices; for a profile the analytic plan is all there is.
    m_exact.reset();
    if (m_info && m_targetIndex == 0)
        m_exactDelay.start();
    else
        m_exactDelay.stop();
    emit planChanged();
    emit exactCheckChanged();
}

void OffloadController::startExactCheck()
{
    if (!m_info || m_targetIndex != 0)
        return;
    m_exactRunning = true;
    m_chat->session()->requestExactPlan(m_path, planSettings(),
                                        currentTarget());
    emit exactCheckChanged();
}

void OffloadController::autoFit()
{
    if (!m_info)
        return;
    FitRequest r;
    r.settings = planSettings();
    r.locks = m_settings.locks;
    r.marginBytes = quint64(m_marginMiB) * MiB;
    if (!m_settings.locks.contextSize)
        r.wantedContext = std::min<uint32_t>(m_info->contextLength ? m_info->contextLength : 32768, 32768);
    const FitResult f = shoehorn::autoFit(*m_info, r, currentTarget());
    if (f.ok()) {
        ModelSettings out = m_settings;
        out.load = f.settings.load;
        out.context = f.settings.context;
        if (out.load.gpuLayers > int(m_info->layerCount))
            out.load.gpuLayers = -1; // every layer and the output: llama.cpp's -ngl 99
        setSettings(out);
        emit settingsChanged();
    }
    m_lastFit = f;
    emit planChanged();
}

void OffloadController::loadOrReload()
{
    if (m_path.isEmpty())
        return;
    if (isLoadedModel()) {
        m_chat->reload();
    } else {
        ModelSettingsStore::save(m_path, m_settings);
        m_chat->openModel(m_path);
    }
}

QString OffloadController::llamaServerCommand() const
{
    return ::llamaServerCommand(m_path, m_settings, images().projector);
}

void OffloadController::onModelLoaded(const ModelSummary &summary)
{
    if (summary.path != m_path)
        setModelPath(summary.path);
    m_settings = m_chat->modelSettings();
    // After loading, the gauges also show what llama.cpp really allocated.
    m_measured = summary.measured;
    m_hasMeasured = true;
    emit settingsChanged();
    replan();
}
