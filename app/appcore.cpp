#include "appcore.h"
#include "appsettings.h"

#include "apicontroller.h"
#include "chatcontroller.h"
#include "filesafety.h"
#include "hardwaremonitor.h"
#include "inferencesession.h"
#include "remotemachines.h"
#include "tuningcontroller.h"
#include "tuningstore.h"
#include "visioncontroller.h"
#include "worker.h"

#include <QFileInfo>

AppCore::AppCore(QObject *parent) : AppCore(nullptr, parent) {}

AppCore::AppCore(std::unique_ptr<Worker> worker, QObject *parent)
    : QObject(parent), m_remote(new RemoteMachines(this)), m_hardware(new HardwareMonitor(this)), m_session(new InferenceSession(std::move(worker), this)),
      m_chat(new ChatController(m_session, this)), m_api(new ApiController(m_session->apiHost(), this)),
      m_vision(new VisionController(m_chat, m_session, this)), m_tuning(new TuningController(m_chat, m_session, m_hardware, this))
{
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
    m_chat->setAutoSpeculation([hw = m_hardware](const QString &path) -> std::optional<shoehorn::SpeculationSettings> {
        TuneReport r;
        if (!hw->hasProbed() || !TuningStore::load(path, hw->machineId(), r) || r.result.best < 0 ||
            r.result.best >= int(r.result.measurements.size()))
            return std::nullopt;
        return r.result.measurements[size_t(r.result.best)].candidate.settings.context.speculation;
    });
    // The name clients see in /v1/models.
    connect(m_chat, &ChatController::modelLoaded, m_api,
            [api = m_api](const ModelSummary &summary) { api->setModelAlias(QFileInfo(summary.path).fileName()); });
}

AppCore::~AppCore()
{
    // Settings written in the background (AppSettings::writeInBackground) are on disk before the
    // process ends: a write is milliseconds. (The session then cancels and joins its thread.)
    AppSettings::waitForWrites();
}
