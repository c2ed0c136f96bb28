#pragma once

#include "chattypes.h"
#include "tuningstore.h"

#include <QObject>

class LoadedModel;
class HardwareMonitor;
class InferenceSession;

// Auto-tune of the loaded model: runs it on the worker (the chat waits meanwhile), keeps each
// run's report per model file and machine, and gives back the last one.
class TuningController : public QObject
{
    Q_OBJECT
public:
    TuningController(LoadedModel *model, InferenceSession *session, HardwareMonitor *hardware,
                     QObject *parent = nullptr);

    // An empty request.target means this machine (the worker probes it). NoModel or Busy when
    // it cannot start now.
    shoehorn::Error start(const shoehorn::TuneRequest &request);
    void cancel();
    // Results of an earlier run for the loaded model on this machine.
    std::optional<TuneReport> stored() const;

signals:
    void progress(int done, int total, const QString &configuration);
    void finished(const TuneReport &report);

private:
    LoadedModel *m_model;
    InferenceSession *m_session;
    HardwareMonitor *m_hardware;
};
