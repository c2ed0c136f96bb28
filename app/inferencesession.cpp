#include "inferencesession.h"

#include "apihost.h"
#include "inferenceworker.h"

#include <cstdio>
#include <cstdlib>

using namespace shoehorn;

InferenceSession::InferenceSession(std::unique_ptr<Worker> worker, QObject *parent)
    : QObject(parent), m_api(std::make_shared<ApiHost>())
{
    registerShoehornMetaTypes();
    m_worker = worker ? worker.release() : new InferenceWorker;
    m_worker->setCancelFlags({&m_cancelLoad, &m_cancelGeneration, &m_noResume, &m_quitting});
    m_worker->setApiHost(m_api);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connectWorker();
    m_thread.setObjectName(QStringLiteral("inference"));
    m_thread.start();
}

InferenceSession::~InferenceSession()
{
    // Never an unbounded wait: the worker is told to stop (the cancel flags, which llama.cpp's
    // progress callback and the token loop read) and given kStopMs. One stuck where nothing can
    // interrupt it (a chat template that spins) ends the process, as main() does after its own
    // shutdown(2000), instead of a window that never closes. (The app calls shutdown() first:
    // then this returns at once.)
    if (!shutdown(kStopMs)) {
        std::fprintf(stderr, "shoehorn: the inference thread did not stop within %d ms; quitting without it\n", kStopMs);
        std::fflush(nullptr);
        std::_Exit(3);
    }
}

bool InferenceSession::shutdown(int milliseconds)
{
    m_cancelLoad = true;
    m_cancelGeneration = true;
    m_noResume = true; // a tune ends without loading its model again
    m_quitting = true; // a remote machine's probe at start ends (it waited up to 5 s a machine)
    m_thread.quit();
    return m_thread.wait(QDeadlineTimer(milliseconds));
}

void InferenceSession::connectWorker()
{
    connect(m_worker, &Worker::remotesAttached, this, &InferenceSession::remotesAttached);
    connect(m_worker, &Worker::loadProgress, this, &InferenceSession::loadProgress);
    connect(m_worker, &Worker::loadRetrying, this, &InferenceSession::loadRetrying);
    connect(m_worker, &Worker::modelLoaded, this, &InferenceSession::onLoaded);
    connect(m_worker, &Worker::loadFailed, this, &InferenceSession::onLoadFailed);
    connect(m_worker, &Worker::loadRefused, this, &InferenceSession::onLoadRefused);
    // Results of an earlier request (an answer stopped by a model switch) are dropped.
    connect(m_worker, &Worker::delta, this, [this](quint64 id, const QString &content, const QString &reasoning) {
        if (id == m_requestId)
            emit delta(content, reasoning);
    });
    connect(m_worker, &Worker::prefillProgress, this, [this](quint64 id, int done, int total) {
        if (id == m_requestId)
            emit prefillProgress(done, total);
    });
    connect(m_worker, &Worker::imageProgress, this, [this](quint64 id, int number, int count) {
        if (id == m_requestId)
            emit imageProgress(number, count);
    });
    connect(m_worker, &Worker::generationProgress, this, [this](quint64 id, double tps, int used, int size) {
        if (id == m_requestId)
            emit generationProgress(tps, used, size);
    });
    connect(m_worker, &Worker::generationFinished, this, [this](quint64 id, const GenerationStats &stats) {
        if (id != m_requestId)
            return;
        if (m_state == State::Generating)
            setState(State::Ready);
        emit generationFinished(stats);
    });
    connect(m_worker, &Worker::generationFailed, this, [this](quint64 id, const Error &error) {
        if (id != m_requestId)
            return;
        if (m_state == State::Generating)
            setState(hasModel() ? State::Ready : State::NoModel);
        emit generationFailed(error);
    });
    connect(m_worker, &Worker::visionChanged, this, [this](const VisionSummary &v) {
        m_vision = v;
        emit visionChanged(v);
    });
    connect(m_worker, &Worker::tuneProgress, this, &InferenceSession::tuningProgress);
    connect(m_worker, &Worker::tuneFinished, this, [this](const TuneReport &report) {
        if (m_state == State::Tuning)
            setState(hasModel() ? State::Ready : State::NoModel);
        emit tuningFinished(report);
    });
    connect(m_worker, &Worker::exactPlanFinished, this, [this](const ExactCheck &check) {
        if (check.requestId == m_exactId)
            emit exactPlanFinished(check);
    });
}

void InferenceSession::setState(State s)
{
    if (m_state == s)
        return;
    m_state = s;
    emit stateChanged(s);
}

void InferenceSession::load(const QString &path, const LoadSettings &load, const ContextSettings &context)
{
    m_pending = PendingLoad{path, load, context};
    if (m_state == State::Loading) {
        // The running load must end first; it sees the flag at its next progress step.
        m_cancelLoad = true;
        return;
    }
    if (m_state == State::Generating || m_state == State::Tuning)
        m_cancelGeneration = true; // the queued load runs once the answer stops
    if (m_state == State::Tuning)
        m_noResume = true; // and the tuned model is not loaded again before it
    startLoad();
}

void InferenceSession::startLoad()
{
    m_loading = *m_pending;
    m_pending.reset();
    m_cancelLoad = false;
    setState(State::Loading);
    const PendingLoad l = m_loading;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, l] { w->loadModel(l.path, l.load, l.context); },
                              Qt::QueuedConnection);
}

void InferenceSession::attachRemotes(const QStringList &endpoints, const QString &helper)
{
    QMetaObject::invokeMethod(m_worker, [w = m_worker, endpoints, helper] { w->attachRemotes(endpoints, helper); },
                              Qt::QueuedConnection);
}

void InferenceSession::loadProjector(const QString &path, bool offload)
{
    QMetaObject::invokeMethod(m_worker, [w = m_worker, path, offload] { w->loadProjector(path, offload); },
                              Qt::QueuedConnection);
}

void InferenceSession::cancelLoad()
{
    if (m_state == State::Loading) {
        m_pending.reset();
        m_cancelLoad = true;
    }
}

void InferenceSession::onLoaded(const ModelSummary &summary)
{
    if (m_pending) {
        startLoad();
        return;
    }
    m_model = summary;
    setState(State::Ready);
    emit modelLoaded(summary);
}

void InferenceSession::onLoadFailed(const Error &error)
{
    m_model = ModelSummary{}; // the worker dropped the previous model before this load
    if (m_pending) {
        startLoad();
        return;
    }
    setState(State::NoModel);
    emit loadFailed(error);
}

void InferenceSession::onLoadRefused(const Error &error)
{
    if (m_pending) {
        startLoad();
        return;
    }
    // Refused before the worker dropped anything: the model loaded before is still there.
    setState(hasModel() ? State::Ready : State::NoModel);
    emit loadFailed(error);
}

quint64 InferenceSession::generate(ChatHistory history, const GenerationOptions &options)
{
    if (m_state != State::Ready)
        return 0;
    m_cancelGeneration = false;
    const quint64 id = ++m_requestId;
    setState(State::Generating);
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, id, history = std::move(history), options] { w->generate(id, toEngineHistory(history), options); },
        Qt::QueuedConnection);
    return id;
}

void InferenceSession::stop()
{
    if (m_state == State::Generating)
        m_cancelGeneration = true;
}

Error InferenceSession::startTuning(const TuneRequest &request)
{
    if (m_state == State::NoModel)
        return {ErrorCode::NoModel, {}};
    if (m_state != State::Ready)
        return {ErrorCode::Busy, {}};
    m_cancelGeneration = false;
    m_noResume = false;
    setState(State::Tuning);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, request] { w->autoTune(request); }, Qt::QueuedConnection);
    return {};
}

void InferenceSession::cancelTuning()
{
    if (m_state == State::Tuning)
        m_cancelGeneration = true;
}

quint64 InferenceSession::requestExactPlan(const QString &path, const PlanSettings &settings, const PlanTarget &target)
{
    const quint64 id = ++m_exactId;
    // Requests queued behind an answer collapse into the newest one.
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, latest = &m_exactId, id, path, settings, target] {
            if (id == latest->load())
                w->exactPlan(id, path, settings, target);
        },
        Qt::QueuedConnection);
    return id;
}
