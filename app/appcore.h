#pragma once

#include "windowparts.h" // and the classes it names

#include <QObject>

#include <memory>

class HardwareMonitor;
class InferenceSession;
class Worker;

// The app core's objects and who owns them (the composition root): the inference session (the
// worker and its thread), the loaded model, the hardware monitor, the chat history and the open
// chat, the local API, the vision projectors, auto-tune, the offload plan, the model library and
// the remote machines (RPC workers). main() and the tests make one; the window is handed the
// objects it works with (windowParts()), each controller its own here, and neither this.
class AppCore : public QObject
{
    Q_OBJECT
public:
    explicit AppCore(QObject *parent = nullptr);
    // A fake worker runs the app core without llama.cpp (tests).
    explicit AppCore(std::unique_ptr<Worker> worker, QObject *parent = nullptr);
    ~AppCore() override;
    // Quitting: stops what runs, and once the worker has ended, hands its last results to who
    // listens (the chat stores an answer stopped mid-way as stopped). False (said on stderr) if
    // the worker did not end in time, or an export was still being written after kExportWaitMs.
    bool shutdown(int milliseconds);
    static constexpr int kExportWaitMs = 30000;

    InferenceSession *session() const { return m_session; }
    LoadedModel *model() const { return m_model; }
    HardwareMonitor *hardware() const { return m_hardware; }
    ChatController *chat() const { return m_chat; }
    // The chat history (its store is null when it could not be opened; problem() says why).
    ConversationRepository *history() const { return m_repo; }
    // The stored chats as a list model, kept up to date; null when the history could not be opened.
    ConversationList *conversations() const { return m_conversations; }
    ApiController *api() const { return m_api; }
    VisionController *vision() const { return m_vision; }
    TuningController *tuning() const { return m_tuning; }
    RemoteMachines *remote() const { return m_remote; }
    OffloadController *offload() const { return m_offload; }
    ModelLibrary *library() const { return m_library; }
    WindowParts windowParts() const;

private:
    void connectLibrary();

    RemoteMachines *m_remote;
    HardwareMonitor *m_hardware;
    InferenceSession *m_session;
    LoadedModel *m_model;
    ConversationRepository *m_repo;
    ConversationList *m_conversations = nullptr;
    ChatController *m_chat;
    ApiController *m_api;
    VisionController *m_vision;
    TuningController *m_tuning;
    OffloadController *m_offload;
    ModelLibrary *m_library;
};
