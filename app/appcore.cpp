#include "appcore.h"
#include "appsettings.h"

#include "apicontroller.h"
#include "chatcontroller.h"
#include "conversationlist.h"
#include "conversationrepository.h"
#include "filesafety.h"
#include "hardwaremonitor.h"
#include "inferencesession.h"
#include "loadedmodel.h"
#include "modellibrary.h"
#include "offloadcontroller.h"
#include "plantargets.h"
#include "remotemachines.h"
#include "tuningcontroller.h"
#include "tuningstore.h"
#include "visioncontroller.h"
#include "worker.h"
#include "workpool.h"

#include <QCoreApplication>
#include <QThreadPool>
#include <QFileInfo>
#include <QTimer>

#include <cstdio>

AppCore::AppCore(QObject *parent) : AppCore(nullptr, parent) {}

AppCore::AppCore(std::unique_ptr<Worker> worker, QObject *parent)
    : QObject(parent), m_remote(new RemoteMachines(this)), m_hardware(new HardwareMonitor(this)),
      m_session(new InferenceSession(std::move(worker), this)), m_model(new LoadedModel(m_session, this)),
      m_repo(new ConversationRepository(this)), m_chat(new ChatController(m_session, m_model, m_repo, this)),
      m_api(new ApiController(m_session->apiHost(), this)), m_vision(new VisionController(m_model, m_session, this)),
      m_tuning(new TuningController(m_model, m_session, m_hardware, this)),
      m_offload(new OffloadController(m_model, m_hardware, m_api, m_vision, this)), m_library(new ModelLibrary(this))
{
    if (const HistoryProblem problem = m_repo->open(ChatStore::defaultPath()); !m_repo->isOpen())
        qWarning("chat history not available: %s (%s)", qPrintable(problem.path), qPrintable(problem.reason));
    if (ChatStore *store = m_repo->store()) {
        m_conversations = new ConversationList(store, this);
        connect(m_chat, &ChatController::conversationsChanged, m_conversations, &ConversationList::refresh);
    }
    connect(m_remote, &RemoteMachines::limitsChanged, m_offload->targets(), &PlanTargets::limitsChanged);
    connectLibrary();
    // Remote machines join ggml's devices on the inference thread (the remembered ones queued
    // before any load, one added later between loads); no hardware probe runs meanwhile.
    connect(m_session, &InferenceSession::remotesAttached, this, [this](const shoehorn::AttachedRemotes &r) {
        m_remote->attached(r);
        m_hardware->hold(false);
        m_hardware->refresh(); // the gauges and plans show the new devices
    });
    connect(m_remote, &RemoteMachines::attachRequested, this, [this](const QString &endpoint) {
        m_hardware->holdThen([this, endpoint] { m_session->attachRemotes({endpoint}, fileSafetyHelper()); });
    });
    if (const QStringList remote = RemoteMachines::remembered(); !remote.isEmpty()) {
        m_hardware->hold(true);
        m_session->attachRemotes(remote, fileSafetyHelper());
    }
    m_hardware->refresh(); // in the background: who shows memory or tunes needs it soon
    // Speculation "Auto": what auto-tune measured fastest for the file on this machine.
    m_model->setAutoSpeculation([hw = m_hardware](const QString &path) -> std::optional<shoehorn::SpeculationSettings> {
        const std::optional<TuneReport> r = hw->hasProbed() ? TuningStore::load(path, hw->machineId()) : std::nullopt;
        if (!r || r->result.best < 0 || r->result.best >= int(r->result.measurements.size()))
            return std::nullopt;
        return r->result.measurements[size_t(r->result.best)].candidate.settings.context.speculation;
    });
    // The name clients see in /v1/models.
    connect(m_model, &LoadedModel::modelLoaded, m_api,
            [api = m_api](const ModelSummary &summary) { api->setModelAlias(QFileInfo(summary.path).fileName()); });
}

// The Models list follows the loads, whoever starts them: the model being opened is listed at
// once with its progress, and stays as a recent model once loaded.
void AppCore::connectLibrary()
{
    connect(m_model, &LoadedModel::stateChanged, m_library, [this](InferenceSession::State state) {
        if (state == InferenceSession::State::Loading && m_library->loadingPath() != m_model->loadingPath())
            m_library->loadStarted(m_model->loadingPath());
    });
    connect(m_model, &LoadedModel::loadProgress, m_library, &ModelLibrary::loadProgress);
    connect(m_model, &LoadedModel::modelLoaded, m_library, [this](const ModelSummary &summary) {
        m_library->loadEnded(true);
        // Remembered (a settings write) after the window has shown the model, and after the
        // model's settings were written (kWriteAfterLoadMs): the list's rows read them.
        QTimer::singleShot(2 * AppSettings::kWriteAfterLoadMs, m_library,
                           [library = m_library, path = summary.path] { library->addRecent(path); });
    });
    connect(m_model, &LoadedModel::loadFailed, m_library, [this] { m_library->loadEnded(false); });
    // The list's Images column shows the loaded model's projector choice.
    connect(m_model, &LoadedModel::modelSettingsChanged, m_library, [this] {
        if (m_model->hasModel())
            m_library->settingsChanged(m_model->model().path);
    });
}

bool AppCore::shutdown(int milliseconds)
{
    if (!m_session->shutdown(milliseconds)) {
        std::fprintf(stderr, "shoehorn: the inference thread did not stop within %d ms; quitting without it\n",
                     milliseconds);
        return false;
    }
    // The worker's last signals (the stopped answer) wait in the session's queue; the session
    // passes them on to the controllers directly.
    QCoreApplication::sendPostedEvents(m_session);
    // A question with pictures still being stored: its ids come now, and with them the stopped
    // answer's last write. A chat being imported is stored, not opened.
    m_chat->forgetImports();
    m_repo->finishBackgroundWork();
    // What else runs on the work pool ends before the objects it may use go (Qt does this for its
    // global pool in ~QCoreApplication): a decode or a highlight; a remote machine's test is told
    // to stop (its helper killed: it took up to 5 s). Not started yet: dropped. What the user
    // asked to be written (an export) is written.
    m_remote->stopTests();
    workPool()->clear();
    workPool()->waitForDone();
    // An export to a folder that does not answer (a share gone) must not hold quitting for ever;
    // it writes a temporary file and renames it when done, so nothing half written is left.
    if (!writePool()->waitForDone(kExportWaitMs)) {
        std::fprintf(stderr, "shoehorn: an export was still being written after %d s; quitting without it\n",
                     kExportWaitMs / 1000);
        return false;
    }
    return true;
}

WindowParts AppCore::windowParts() const
{
    return {m_model, m_chat, m_repo, m_conversations, m_library, m_offload, m_tuning, m_vision, m_api, m_remote};
}

AppCore::~AppCore()
{
    // Settings written in the background (AppSettings::writeInBackground) are on disk before the
    // process ends: a write is milliseconds. (The session then cancels and joins its thread.)
    // So are the chat history's pool jobs (a question with pictures, milliseconds), also when
    // shutdown() was not called (tests): a job left running past the process's end used SQLite's
    // connections after Qt SQL's statics had gone. First: what they deliver may write settings.
    m_repo->finishBackgroundWork();
    AppSettings::waitForWrites();
}
