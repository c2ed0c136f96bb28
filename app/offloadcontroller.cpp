#include "offloadcontroller.h"

#include "apicontroller.h"
#include "appsettings.h"
#include "loadedmodel.h"
#include "planner.h"
#include "modelinspector.h"
#include "plantargets.h"
#include "remotemachines.h"
#include "servercommand.h"
#include "validate.h"
#include "visioncontroller.h"
#include "workpool.h"

#include <QtConcurrent/QtConcurrentRun>

#include <utility>

using namespace shoehorn;

OffloadController::OffloadController(LoadedModel *model, HardwareMonitor *hardware, ApiController *api,
                                     VisionController *vision, QObject *parent)
    : QObject(parent), m_model(model), m_api(api), m_vision(vision), m_settings(model->modelSettings()),
      m_targets(new PlanTargets(model, hardware, this)),
      m_inspector(new ModelInspector(this)), m_draftInspector(new ModelInspector(this))
{
    m_exactDelay.setSingleShot(true);
    m_exactDelay.setInterval(700);
    connect(&m_exactDelay, &QTimer::timeout, this, &OffloadController::startExactCheck);
    connect(m_targets, &PlanTargets::targetChanged, this, [this] { ++m_inputs; });
    connect(&m_fitting, &QFutureWatcher<FitResult>::finished, this, [this] { applyFit(m_fitting.result()); });
    connect(m_inspector, &ModelInspector::inspected, this, &OffloadController::inspected);
    connect(m_draftInspector, &ModelInspector::inspected, this,
            [this](const QString &path, const std::optional<ModelInfo> &info, const Error &) {
                m_draftPath = path;
                // Unreadable: planned without it; the load names the problem (speculationOff).
                m_draft = info ? std::make_shared<const ModelInfo>(*info) : nullptr;
                replan();
            });
    connect(m_targets, &PlanTargets::freeMemoryChanged, this, [this] {
        // Free memory moved: the gauges follow; llama.cpp's buffer sizes (the dry run) did not.
        if (m_targets->isThisComputer())
            replan(false);
    });
    connect(m_targets, &PlanTargets::targetChanged, this, [this] {
        m_lastFit.reset(); // Auto-fit's words were about the machine before
        replan();
    });
    connect(m_model, &LoadedModel::modelLoaded, this, &OffloadController::onModelLoaded);
    connect(m_model, &LoadedModel::loadFailed, this, [this] { replan(); });
    connect(m_api, &ApiController::stateChanged, this, [this] { replan(); });
    connect(m_vision, &VisionController::factsReady, this, [this] { replan(); });
    connect(m_model, &LoadedModel::modelSettingsChanged, this, &OffloadController::onControllerSettings);
    connect(m_model, &LoadedModel::exactPlanFinished, this, [this](const ExactCheck &c) {
        m_exactRunning = false;
        // The user switched to a profile (or away from the model) while it ran: stale.
        m_exact.reset();
        if (m_targets->isThisComputer() && m_info)
            m_exact = c;
        emit exactCheckChanged();
    });
}

OffloadController::~OffloadController() = default;

void OffloadController::setModelPath(const QString &path)
{
    if (path == m_path && (m_info || inspecting()))
        return;
    m_path = path;
    ++m_inputs;
    m_lastFit.reset();
    m_info.reset();
    m_inspectError = {};
    m_exact.reset();
    m_inspector->inspect(path);
    emit modelChanged();
    replan();
}

void OffloadController::inspected(const QString &path, const std::optional<ModelInfo> &info, const Error &error)
{
    if (path != m_path)
        return;
    ++m_inputs;
    m_info = info;
    m_inspectError = error;
    m_settings = isLoadedModel() ? m_model->modelSettings()
                                 : AppSettings::forModel(m_path, m_model->modelSettings(),
                                                         m_model->hasModel() ? m_model->model().path : QString(),
                                                         m_info ? m_info->contextLength : 0);
    emit modelChanged();
    emit settingsChanged();
    replan();
}

bool OffloadController::inspecting() const
{
    return m_inspector->busy();
}

bool OffloadController::isLoadedModel() const
{
    return m_model->hasModel() && m_model->model().path == m_path;
}

const MemoryPlan *OffloadController::measured() const
{
    return isLoadedModel() && m_targets->isThisComputer() ? &m_model->model().measured : nullptr;
}

OffloadController::RamParts OffloadController::ramParts() const
{
    RamParts r;
    if (!m_info)
        return r;
    r.plannedAnonymous = m_plan.anonymousBytes();
    r.plannedFile = m_plan.mmapResidentBytes;
    const ProcessMemory &now = m_targets->hardware().process;
    const HeldMemory &held = m_model->model().held;
    if (isLoadedModel() && m_targets->isThisComputer() && now.known && held.before.known) {
        r.loaded = true;
        r.actualAnonymous = held.ramBytes(now);
        r.actualFile = now.fileBytes > held.before.fileBytes ? now.fileBytes - held.before.fileBytes : 0;
    }
    return r;
}

void OffloadController::setSettings(const ModelSettings &s)
{
    ++m_inputs;
    m_lastFit.reset();
    const bool noGpu = s.load.devices == std::vector<std::string>{"none"};
    const bool gpuLayersGiven = s.load.gpuLayers != 0 && s.load.gpuLayers != m_settings.load.gpuLayers;
    m_settings = s;
    // "No GPU" (-dev none: auto-fit's CPU alone, or a preset's) goes when the user moves the GPU
    // layers to a number above 0: the slider would move and the GPU stay unused, with nothing on
    // screen saying why.
    if (noGpu && gpuLayersGiven)
        m_settings.load.devices.clear();
    // Settings of the loaded model go to the controller (and are remembered for that file);
    // for another model they are remembered for that file only.
    m_updating = true;
    if (isLoadedModel())
        m_model->setModelSettings(m_settings);
    else if (!m_path.isEmpty())
        ModelSettingsStore::save(m_path, m_settings);
    m_updating = false;
    replan();
}

void OffloadController::setMarginMiB(int mib)
{
    if (mib == m_marginMiB)
        return;
    m_marginMiB = mib;
    ++m_inputs;
    // Auto-fit's last words were about the margin before ("lower the margin" stayed after it was).
    if (std::exchange(m_lastFit, std::nullopt))
        emit planChanged();
}

void OffloadController::onControllerSettings()
{
    if (m_updating || !isLoadedModel())
        return;
    ++m_inputs;
    m_settings = m_model->modelSettings();
    emit settingsChanged();
    replan();
}

PlanSettings OffloadController::planSettings() const
{
    PlanSettings s{m_settings.load, m_settings.context, 1};
    s.context.speculation = m_model->speculationFor(m_path, m_settings); // "Auto" resolved
    s.load.mtpLayers = s.context.speculation.mtp();
    // The model's one context: the chat's slot and the local API's in one KV cache, the same
    // memory with the API on or off.
    s.serverLoop = true;
    s.apiSlots = m_api->apiSlots();
    // The vision projector the model will use: its weights and compute buffer (llama.cpp's own
    // dry run of it), on the GPU like llama.cpp unless turned off or nothing is offloaded. Found
    // on a pool thread: the plan counts it once it is known (factsReady replans).
    if (const auto f = m_vision->facts(m_path, m_settings.projector); f && !f->projector.isEmpty()) {
        s.projectorOnGpu = m_settings.projectorOffload && m_settings.load.gpuLayers != 0;
        s.projectorBytes = f->bytes(s.projectorOnGpu);
    }
    // A draft model the speculation setting names: its weights, KV and compute once it is read.
    // One the file check refused at this model's load is not loaded (the chat said so): not planned.
    const SpeculationOff &off = m_model->model().speculationOff;
    if (isLoadedModel() && off.why == SpeculationOff::Why::DraftFailedCheck &&
        off.detail == s.context.speculation.draftModel)
        s.context.speculation = SpeculationSettings();
    if (QString::fromStdString(s.context.speculation.draftModel) == m_draftPath)
        s.draftModel = m_draft;
    return s;
}

OffloadController::Images OffloadController::images() const
{
    Images out;
    const auto f = m_vision->facts(m_path, m_settings.projector);
    if (!f || f->projector.isEmpty())
        return out;
    const PlanSettings s = planSettings();
    out.projector = f->projector;
    out.onGpu = s.projectorOnGpu && !m_plan.gpus.empty(); // no GPU planned for: it runs on the CPU
    out.precision = f->precision;
    out.tokens1024 = f->tokens1024;
    return out;
}

QList<OffloadController::BackendChoice> OffloadController::backendChoices() const
{
    QList<BackendChoice> out;
    const PlanTarget t = m_targets->current();
    for (const std::string &backend : shoehorn::backendChoices(t.gpus)) {
        LoadSettings load;
        load.backend = backend;
        BackendChoice c{QString::fromStdString(backend), {}};
        for (const GpuInfo &g : modelDevices(t.gpus, t.otherBackends, load))
            c.devices << QStringLiteral("%1 · %2").arg(QString::fromStdString(g.name), QString::fromStdString(g.description));
        out << c;
    }
    return out;
}

void OffloadController::readDraftModel()
{
    const QString draft = QString::fromStdString(m_model->speculationFor(m_path, m_settings).draftModel);
    if (!draft.isEmpty() && draft != m_draftPath && !m_draftInspector->busy())
        m_draftInspector->inspect(draft);
}

void OffloadController::replan(bool checkAgain)
{
    readDraftModel();
    m_plan = m_info ? analyticPlan(*m_info, planSettings(), m_targets->current())
                    : MemoryPlan{};
    if (!checkAgain) {
        emit planChanged();
        return;
    }
    // The dry run measures this computer's devices; for a profile the analytic plan is all there is.
    m_exact.reset();
    if (m_info && m_targets->isThisComputer())
        m_exactDelay.start();
    else
        m_exactDelay.stop();
    emit planChanged();
    emit exactCheckChanged();
}

void OffloadController::startExactCheck()
{
    if (!m_info || !m_targets->isThisComputer())
        return;
    // While this model loads, the load measures what the dry run would, and the dry run would
    // wait for it on the inference thread ("Checking..." for the whole load): it is asked again
    // when the load ends (onModelLoaded and a failed load replan).
    if (m_model->state() == LoadedModel::State::Loading && m_model->loadingPath() == m_path)
        return;
    m_exactRunning = true;
    m_model->requestExactPlan(m_path, planSettings(), m_targets->current());
    emit exactCheckChanged();
}

void OffloadController::autoFit()
{
    if (!m_info || fitting())
        return;
    FitRequest r;
    r.settings = planSettings();
    // "No GPU" (-dev none) is a fit's own answer when none had room: Auto-fit asks again with them.
    if (r.settings.load.devices == std::vector<std::string>{"none"})
        r.settings.load.devices.clear();
    r.locks = m_settings.locks;
    r.marginBytes = quint64(m_marginMiB) * MiB;
    if (!m_settings.locks.contextSize)
        r.wantedContext = std::min<uint32_t>(m_info->contextLength ? m_info->contextLength : 32768, 32768);
    const PlanTarget target = m_targets->current();
    // A remote machine's own limit is what it may use, margin included.
    const auto limits = RemoteMachines::limits();
    for (const auto &g : target.gpus)
        r.deviceMarginBytes.push_back(g.remote && limits.count(g.description) ? 0 : r.marginBytes);
    m_fitFor = m_inputs;
    m_fitRunning = true;
    m_fitting.setFuture(QtConcurrent::run(workPool(), [info = *m_info, r, target] { return shoehorn::autoFit(info, r, target); }));
    emit fittingChanged();
}

void OffloadController::applyFit(const FitResult &f)
{
    m_fitRunning = false;
    if (m_inputs != m_fitFor || !m_info) { // another model or machine now: the user asks again there
        emit fittingChanged();
        return;
    }
    if (f.ok()) {
        ModelSettings out = m_settings;
        out.load = f.settings.load;
        out.context = f.settings.context;
        out.context.speculation = m_settings.context.speculation; // the user's choice (the plan may leave a draft out)
        if (out.load.gpuLayers > int(m_info->layerCount))
            out.load.gpuLayers = -1; // every layer and the output: llama.cpp's -ngl 99
        setSettings(out);
        emit settingsChanged();
    }
    m_lastFit = f;
    emit planChanged();
    emit fittingChanged();
}

void OffloadController::loadOrReload()
{
    if (m_path.isEmpty())
        return;
    if (isLoadedModel()) {
        m_model->reload();
    } else {
        ModelSettingsStore::save(m_path, m_settings);
        m_model->openModel(m_path);
    }
}

QString OffloadController::llamaServerCommand() const
{
    ModelSettings s = m_settings;
    s.context.speculation = m_model->speculationFor(m_path, m_settings); // "Auto" as it runs
    if (s.load.devices.empty() && !s.load.backend.empty()) { // llama-server knows devices, not backends
        const PlanTarget t = m_targets->current();
        for (const GpuInfo &g : modelDevices(t.gpus, t.otherBackends, s.load))
            s.load.devices.push_back(g.name);
    }
    return ::llamaServerCommand(m_path, s, images().projector);
}

void OffloadController::onModelLoaded(const ModelSummary &summary)
{
    if (summary.path != m_path)
        setModelPath(summary.path);
    m_settings = m_model->modelSettings();
    // After loading, the gauges also show what llama.cpp really allocated.
    emit settingsChanged();
    replan();
}

std::optional<OffloadController::KvHeadMismatch> OffloadController::kvHeadMismatch(const shoehorn::ModelInfo &info,
                                                                                   const shoehorn::ContextSettings &c)
{
    for (const auto &[type, head] : {std::pair{c.typeK, info.headSizeK}, std::pair{c.typeV, info.headSizeV}}) {
        const int block = shoehorn::kvTypeBlockSize(type);
        if (head != 0 && head % uint32_t(block) != 0)
            return KvHeadMismatch{QString::fromStdString(type), block, head};
    }
    return std::nullopt;
}
