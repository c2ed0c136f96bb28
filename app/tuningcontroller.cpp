#include "tuningcontroller.h"

#include "loadedmodel.h"
#include "hardwaremonitor.h"
#include "inferencesession.h"

TuningController::TuningController(LoadedModel *model, InferenceSession *session, HardwareMonitor *hardware,
                                   QObject *parent)
    : QObject(parent), m_model(model), m_session(session), m_hardware(hardware)
{
    connect(m_session, &InferenceSession::tuningProgress, this, &TuningController::progress);
    connect(m_session, &InferenceSession::tuningFinished, this, [this](const TuneReport &report) {
        if (!report.empty())
            TuningStore::save(m_model->model().path, report.machine, report);
        emit finished(report);
    });
}

shoehorn::Error TuningController::start(const shoehorn::TuneRequest &request)
{
    return m_session->startTuning(request);
}

void TuningController::cancel()
{
    m_session->cancelTuning();
}

std::optional<TuneReport> TuningController::stored() const
{
    if (!m_model->hasModel() || !m_hardware->hasProbed())
        return std::nullopt;
    return TuningStore::load(m_model->model().path, m_hardware->machineId());
}
