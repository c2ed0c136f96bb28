#pragma once

#include <QObject>

#include <memory>

class ApiController;
class ChatController;
class HardwareMonitor;
class InferenceSession;
class RemoteMachines;
class TuningController;
class VisionController;
class Worker;

// The app core's objects and who owns them (the composition root): the inference session (the
// worker and its thread), the hardware monitor, the open chat, the local API, the vision
// projectors, auto-tune and the remote machines (RPC workers). The window and the tests make
// one; each widget and controller is handed the objects it works with, not this.
class AppCore : public QObject
{
    Q_OBJECT
public:
    explicit AppCore(QObject *parent = nullptr);
    // A fake worker runs the app core without llama.cpp (tests).
    explicit AppCore(std::unique_ptr<Worker> worker, QObject *parent = nullptr);
    ~AppCore() override;

    InferenceSession *session() const { return m_session; }
    HardwareMonitor *hardware() const { return m_hardware; }
    ChatController *chat() const { return m_chat; }
    ApiController *api() const { return m_api; }
    VisionController *vision() const { return m_vision; }
    TuningController *tuning() const { return m_tuning; }
    RemoteMachines *remote() const { return m_remote; }

private:
    RemoteMachines *m_remote;
    HardwareMonitor *m_hardware;
    InferenceSession *m_session;
    ChatController *m_chat;
    ApiController *m_api;
    VisionController *m_vision;
    TuningController *m_tuning;
};
