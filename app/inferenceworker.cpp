#include "inferenceworker.h"

#include "apihost.h"
#include "samplingpresets.h"

#include "deltabatcher.h"
#include "autotune.h"
#include "filecheck.h"
#include "hardware.h"
#include "model.h"
#include "filesafety.h"
#include "planner.h"
#include "projector.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QStandardPaths>

#include <malloc.h>

namespace {
// What the local API tells a client to wait while the model is tuned (Retry-After, seconds).
constexpr int kTuneRetryAfterSeconds = 30;
} // namespace

using namespace shoehorn;

InferenceWorker::InferenceWorker(QObject *parent) : Worker(parent) {}

InferenceWorker::~InferenceWorker() = default;

Result<bool> InferenceWorker::tryLoad(const QString &path, const PlanSettings &settings)
{
    if (m_inject)
        if (auto e = m_inject(0, settings))
            return *e;
    QElapsedTimer sinceEmit;
    sinceEmit.start();
    LoadSettings load = settings.load;
    load.mtpLayers = settings.context.speculation.mtp(); // the MTP layers only where they draft
    auto model = Model::load(
        path.toStdString(), load,
        [&](float p) {
            if (sinceEmit.elapsed() >= 33 || p >= 1.0f) { // the GUI needs no more than ~30 updates/s
                emit loadProgress(double(p));
                sinceEmit.restart();
            }
        },
        m_cancel.load);
    if (!model)
        return model.error();
    if (m_inject)
        if (auto e = m_inject(1, settings))
            return *e;
    if (Error e = startSession(*model, settings.context))
        return e;
    // Creating the context reads no flag (llama.cpp has no callback there): Cancel pressed
    // meanwhile takes effect as soon as it returns, and the model is not kept.
    if (loadCancelled()) {
        m_session.reset();
        return Error{ErrorCode::Cancelled, "loading was cancelled"};
    }
    m_path = path;
    return true;
}

Error InferenceWorker::startSession(std::shared_ptr<Model> model, const ContextSettings &settings)
{
    // Past the trained length a model only produces garbage: cap the context there.
    ContextSettings context = settings;
    const uint32_t trained = model->info().contextLength;
    if (trained > 0 && (context.contextSize == 0 || context.contextSize > trained))
        context.contextSize = trained;
    // The local API's slots are part of the one context: the memory is the same with the API on
    // or off, and turning it on only opens the HTTP side.
    ApiSlotSettings api;
    api.count = m_api ? m_api->apiSlots() : 0;
    auto session = ChatSession::create(std::move(model), context, api);
    if (!session)
        return session.error();
    // Each turn's chat template renders in the helper process, under the first-open check's limits.
    if (const QString helper = fileSafetyHelper(); !helper.isEmpty())
        (*session)->isolateTemplate(helper.toStdString());
    m_session = std::move(*session);
    return {};
}

void InferenceWorker::loadModel(const QString &path, const LoadSettings &load, const ContextSettings &context)
{
    // The new file is checked before the old model goes: one that fails (not a GGUF, one
    // llama.cpp would crash on) leaves the loaded model, and the API serving it, as they were.
    if (auto failed = checkUntrustedFile(path, m_cancel.load)) {
        if (m_session)
            emit loadRefused(*failed);
        else // none to keep: an earlier load or a tune dropped it
            emit loadFailed(*failed);
        return;
    }
    // Free the old model first: two large models rarely fit at once. The session is its one
    // owner: the API's HTTP side is withdrawn and closed, the loop ends, then the weights go.
    if (m_api)
        m_api->setServer(nullptr);
    if (m_session && m_session->projector())
        emit visionChanged(VisionSummary{});
    m_session.reset();
    // Hand what the old model's heap held back to the system: other programs see it free, and
    // the memory noted before the next load is not inflated by freed pages still resident.
    ::malloc_trim(0);
    m_held = {};
    PlanSettings settings;
    settings.load = load;
    settings.context = context;
    m_draftRefused = checkDraftModel(settings.context.speculation, m_cancel.load);
    const HardwareInfo hwBefore = probeHardware();

    std::optional<ModelInfo> info;
    for (;;) {
        auto r = tryLoad(path, settings);
        if (r)
            break;
        const Error &e = r.error();
        if (e.code != ErrorCode::OutOfMemory || loadCancelled()) {
            emit loadFailed(e);
            return;
        }
        // Out of memory: walk down the ladder while there is a rung left.
        if (!info) {
            auto inspected = inspectModel(path.toStdString());
            if (!inspected) {
                emit loadFailed(e);
                return;
            }
            info = std::move(*inspected);
        }
        auto next = nextSaferSettings(*info, settings);
        if (!next) {
            emit loadFailed(e);
            return;
        }
        next->failure = parseAllocationFailure(e.detail);
        emit loadRetrying(*next);
        settings = next->after;
    }

    const HardwareInfo hwAfter = probeHardware();
    m_held = heldBetween(hwBefore, hwAfter);
    PlanSettings used;
    used.load = settings.load;
    used.context = m_session->settings();
    used.serverLoop = true;
    used.apiSlots = m_session->apiSlots();
    // The draft model's tensor table lays out what llama.cpp allocated for it (a header read).
    if (auto d = draftModelInfo(used.context.speculation)) // unreadable: the session said why
        used.draftModel = *d;
    if (m_draftRefused) // loaded without it; the settings keep what was asked, as the session's do
        used.context.speculation = context.speculation;
    if (m_api)
        m_api->setServer(m_session->api());
    emit modelLoaded(summary(path, used, hwAfter));
}

ModelSummary InferenceWorker::summary(const QString &path, const PlanSettings &used, const HardwareInfo &hw) const
{
    const ModelInfo &mi = m_session->model()->info();
    ModelSummary s;
    s.path = path;
    s.name = QString::fromStdString(mi.name.empty() ? m_session->model()->description() : mi.name);
    s.architecture = QString::fromStdString(mi.architecture);
    s.quantization = QString::fromStdString(mi.fileTypeName);
    s.fileSize = mi.fileSize;
    s.parameterCount = mi.parameterCount;
    s.layerCount = int(mi.layerCount);
    s.expertCount = int(mi.expertCount);
    s.expertUsedCount = int(mi.expertUsedCount);
    s.contextSize = int(m_session->contextSize());
    s.trainedContext = int(mi.contextLength);
    s.supportsThinking = m_session->templateSupportsThinking();
    s.suggestedSampling.repeatPenalty = 1.0f;
    s.hasSuggestedSampling = SamplingPresets::modelDefaults(mi.samplingTemp, mi.samplingTopP, mi.samplingMinP,
                                                            mi.samplingTopK, s.suggestedSampling);
    s.load = used.load;
    s.context = used.context;
    // The analytic plan only lays out llama.cpp's measured totals by kind.
    s.measured = measuredPlan(*m_session, analyticPlan(mi, used, targetFromHardware(hw)));
    s.held = m_held;
    s.speculationOff = m_draftRefused ? *m_draftRefused : m_session->speculationOff();
    s.templateFallback = QString::fromStdString(m_session->templateFallback());
    return s;
}

void InferenceWorker::loadProjector(const QString &path, bool offload)
{
    VisionSummary v;
    v.path = path;
    v.offload = offload;
    if (!m_session) {
        if (!path.isEmpty())
            v.error = Error{ErrorCode::NoModel, "no model is loaded"};
        emit visionChanged(v);
        return;
    }
    std::shared_ptr<Projector> projector;
    if (!path.isEmpty()) {
        if (auto failed = checkUntrustedFile(path)) {
            v.error = *failed;
        } else {
            ProjectorSettings ps;
            ps.offload = offload && m_session->model()->settings().gpuLayers != 0;
            ps.threads = m_session->settings().threads;
            auto p = Projector::load(m_session->model(), path.toStdString(), ps);
            if (p)
                projector = *p;
            else
                v.error = p.error();
        }
    }
    // One copy, for the chat and the API: the loop starts again with it (the context, not the
    // model). The API goes with the old loop and opens on the new one as it is wanted then.
    const bool restarts = projector != m_session->projector(); // else the loop and the API stay
    if (m_api && restarts)
        m_api->withdraw();
    if (Error e = m_session->setProjector(projector)) {
        v.error = e;
        projector.reset();
        m_session->setProjector(nullptr);
    }
    if (m_api && restarts)
        m_api->setServer(m_session->api());
    if (projector) {
        v.ready = true;
        v.precision = QString::fromStdString(projector->info().precision);
        v.projectorType = QString::fromStdString(projector->info().projectorType);
    }
    emit visionChanged(v);
}

void InferenceWorker::generate(quint64 requestId, const std::vector<ChatMessage> &history,
                               const GenerationOptions &options)
{
    if (!m_session) {
        emit generationFailed(requestId, Error{ErrorCode::NoModel, "no model is loaded"});
        return;
    }
    DeltaBatcher batcher;
    QString content, reasoning;
    StreamCallbacks cb;
    int generated = 0, used = 0;
    QElapsedTimer sinceFirst;
    const int contextSize = int(m_session->contextSize());
    cb.onToken = [&](int n, int contextUsed) {
        if (n == 1)
            sinceFirst.start();
        generated = n;
        used = contextUsed;
    };
    cb.onDelta = [&](std::string_view c, std::string_view r) {
        batcher.add(c.data(), c.size(), r.data(), r.size());
        if (batcher.due()) {
            batcher.take(content, reasoning);
            emit delta(requestId, content, reasoning);
            const qint64 ms = sinceFirst.isValid() ? sinceFirst.elapsed() : 0;
            emit generationProgress(requestId, ms > 0 ? (generated - 1) * 1000.0 / double(ms) : 0.0, used,
                                    contextSize);
        }
    };
    QElapsedTimer sincePrefill;
    sincePrefill.start();
    cb.onPrefill = [&](int done, int total) {
        if (sincePrefill.elapsed() >= 100 || done == 0 || done == total) {
            emit prefillProgress(requestId, done, total);
            sincePrefill.restart();
        }
    };
    cb.onImage = [&](int number, int count) { emit imageProgress(requestId, number, count); };
    auto result = m_session->generate(history, options, cb, m_cancel.generation);
    if (!batcher.isEmpty()) {
        batcher.take(content, reasoning);
        emit delta(requestId, content, reasoning);
    }
    if (!result) {
        emit generationFailed(requestId, result.error());
        return;
    }
    emit generationFinished(requestId, result->stats);
}

void InferenceWorker::autoTune(const TuneRequest &request)
{
    TuneReport report;
    if (!m_session) {
        emit tuneFinished(report);
        return;
    }
    // This machine, probed here: the worker is where llama.cpp's devices are asked.
    const HardwareInfo hw = probeHardware();
    TuneRequest r = request;
    if (r.target.name.empty()) {
        r.target = targetFromHardware(hw);
        addHeldMemory(r.target, m_held, hw.process); // the loaded model's own memory: freed below
    }
    report.machine = TuningStore::machineId(hw);
    // Tuning is a mode of the one engine (#30): the API's address answers 503 meanwhile, the
    // session goes (the loop, its context and KV cache, the projector) and the measurer holds
    // the only reference to the weights, replacing them when a trial needs another placement.
    const LoadSettings load = m_session->model()->settings();
    const ContextSettings context = m_session->settings();
    const auto projector = m_session->projector();
    const QString projectorPath = projector ? QString::fromStdString(projector->info().path) : QString();
    const bool projectorOffload = projector && projector->settings().offload;
    if (m_api)
        m_api->setUnavailable("auto-tune is measuring the model's settings; it answers again when that ends",
                              kTuneRetryAfterSeconds);
    std::shared_ptr<Model> model = m_session->model();
    m_session.reset();
    {
        // Speculation is an axis of every tune: the model's MTP layer, n-gram, and the draft model
        // the user named (its tensor table, to plan its memory).
        if (r.speculation.empty())
            r.speculation = speculationChoices(model->info(), context.speculation.draftModel);
        if (auto d = draftModelInfo(context.speculation))
            r.base.draftModel = *d;
        AutoTuner tuner(model->info(), r);
        BenchMeasurer bench(m_path.toStdString(), r.promptTokens, r.generateTokens, r.stop, std::move(model));
        int done = 0;
        auto measure = [&](const TuneCandidate &c) {
            emit tuneProgress(done, 0, QString::fromStdString(c.label));
            TuneMeasurement m = bench(c);
            ++done;
            return m;
        };
        report.result = tuner.tune(measure, m_cancel.generation,
                                   [&](int n, int total) { emit tuneProgress(n, total, QString()); });
        const TuneResult &t = report.result;
        if (!t.cancelled && !generationCancelled())
            report.story = tuner.story(measure, m_cancel.generation,
                                       t.best >= 0 ? &t.measurements[size_t(t.best)] : nullptr);
        model = bench.takeModel();
    }
    report.result.cancelled = report.result.cancelled || generationCancelled();
    report.when = QDateTime::currentDateTime();
    if (resumeCancelled()) {
        // Quitting, or another model is next: loading this one again would only delay both.
        model.reset();
        if (m_api)
            m_api->setServer(nullptr);
        if (!projectorPath.isEmpty())
            emit visionChanged(VisionSummary{}); // no pictures until the next model says otherwise
        emit tuneFinished(report);
        return;
    }
    const Error resumed = resumeAfterTuning(std::move(model), load, context, projectorPath, projectorOffload);
    emit tuneFinished(report);
    if (resumed) { // the model is gone: said as a load that failed
        Error e = resumed;
        e.detail = "after auto-tune the model could not be loaded again: " + e.detail;
        emit loadFailed(e);
    }
}

Error InferenceWorker::resumeAfterTuning(std::shared_ptr<Model> model, const LoadSettings &load,
                                         const ContextSettings &context, const QString &projector, bool projectorOffload)
{
    const bool samePlacement = model && model->settings().gpuLayers == load.gpuLayers &&
                               model->settings().cpuMoeLayers == load.cpuMoeLayers &&
                               model->settings().loadMode == load.loadMode &&
                               model->settings().tensorSplit == load.tensorSplit &&
                               model->settings().devices == load.devices && model->settings().backend == load.backend;
    if (!samePlacement) {
        model.reset(); // the last trial's weights go before the chat's come back
        auto loaded = Model::load(m_path.toStdString(), load);
        if (!loaded) {
            if (m_api)
                m_api->setServer(nullptr);
            return loaded.error();
        }
        model = *loaded;
    }
    if (Error e = startSession(std::move(model), context)) {
        if (m_api)
            m_api->setServer(nullptr);
        return e;
    }
    if (!projector.isEmpty())
        loadProjector(projector, projectorOffload); // says visionChanged and publishes the API's server, as a choice in the menu does
    else if (m_api)
        m_api->setServer(m_session->api());
    return {};
}

void InferenceWorker::exactPlan(quint64 requestId, const QString &path, const PlanSettings &settings,
                                const PlanTarget &target)
{
    ExactCheck c;
    c.requestId = requestId;
    // llama.cpp's dry run loads the file's metadata and vocabulary in this process: only after
    // the file passed the check in the helper (cached, so usually free).
    if (auto failed = checkUntrustedFile(path)) {
        c.error = *failed;
        emit exactPlanFinished(c);
        return;
    }
    // And its draft model: a dry run without it would not be the plan's.
    if (const std::string &draft = settings.context.speculation.draftModel; !draft.empty())
        if (auto failed = checkUntrustedFile(QString::fromStdString(draft))) {
            c.error = *failed;
            c.error.detail = flaggedVerdict("-md", draft, *failed);
            emit exactPlanFinished(c);
            return;
        }
    auto r = shoehorn::exactPlan(path.toStdString(), settings, target);
    c.ok = r.ok();
    if (r)
        c.plan = *r;
    else
        c.error = r.error();
    emit exactPlanFinished(c);
}
