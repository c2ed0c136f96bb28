#include "tuningcontroller.h"

#include "chatcontroller.h"
#include "hardwaremonitor.h"
#include "inferencesession.h"

TuningController::TuningController(ChatController *chat, InferenceSession *session, HardwareMonitor *hardware,
                                   QObject *parent)
    : QObject(parent), m_chat(chat), m_session(session), m_hardware(hardware)
{
    connect(m_session, &InferenceSession::tuningProgress, this, &TuningController::progress);
    connect(m_session, &InferenceSession::tuningFinished, this, [this](const TuneReport &report) {
        if (!report.empty())
            TuningStore::save(m_chat->model().path, report.machine, report);
        emit finished(report);
    });
}

bool TuningController::start(const shoehorn::TuneRequest &request)
{
    return m_session->startTuning(request);
}

void TuningController::cancel()
{
    m_session->cancelTuning();
}

bool TuningController::stored(TuneReport &out) const
{
    return m_chat->hasModel() && m_hardware->hasProbed() &&
           TuningStore::load(m_chat->model().path, m_hardware->machineId(), out);
}
