#pragma once

#include "chattypes.h"
#include "chatstore.h"
#include "modelsettings.h"
#include "tuningstore.h"

#include <QObject>
#include <QElapsedTimer>
#include <QThread>

#include <atomic>

class ChatModel;
class InferenceWorker;

// Owns the inference thread and the open conversation. GUI-thread object: the UI calls it,
// it queues work to the worker and applies results to the ChatModel.
class ChatController : public QObject
{
    Q_OBJECT
public:
    enum class State { NoModel, Loading, Ready, Generating, Tuning };
    Q_ENUM(State)

    explicit ChatController(QObject *parent = nullptr);
    ~ChatController() override;

    ChatModel *chatModel() const { return m_chat; }
    // Conversations are stored as they happen (see ChatStore); null store: not persisted.
    ChatStore *store() { return m_storeOpen ? &m_store : nullptr; }
    qint64 currentConversation() const { return m_conversation; }
    InferenceWorker *worker() const { return m_worker; } // for test seams only
    State state() const { return m_state; }
    const ModelSummary &model() const { return m_model; }
    bool hasModel() const { return !m_model.path.isEmpty(); }
    // An answer is streaming into the chat (also while a model switch waits for it to stop).
    bool answering() const { return m_answerRow >= 0; }

    shoehorn::LoadSettings loadSettings() const { return m_load; }
    void setLoadSettings(const shoehorn::LoadSettings &s) { m_load = s; }
    shoehorn::ContextSettings contextSettings() const { return m_context; }
    void setContextSettings(const shoehorn::ContextSettings &s) { m_context = s; }
    shoehorn::GenerationOptions generationOptions() const { return m_options; }
    void setGenerationOptions(const shoehorn::GenerationOptions &o) { m_options = o; }
    // All per-model settings at once (what the offload panel edits); stored per model file.
    ModelSettings modelSettings() const;
    void setModelSettings(const ModelSettings &s);
    QString systemPrompt() const { return m_systemPrompt; }
    // The open chat's system prompt; stored with the chat.
    void setSystemPrompt(const QString &s);
    // What a new chat with this model starts with.
    static QString defaultSystemPrompt(const QString &modelPath);
    static void setDefaultSystemPrompt(const QString &modelPath, const QString &prompt);
    QString conversationTitle() const;

public slots:
    // Opens a model with its remembered settings, if it has any.
    void openModel(const QString &path);
    // Loads the current model again with the current settings (after the user changed them).
    void reload();
    void cancelLoad();
    // Returns false if the message cannot be sent now (no model, busy, empty text).
    bool send(const QString &text);
    // Answers the question before `row` again; the earlier answer stays as a version. On a
    // last question without an answer, answers it.
    bool regenerate(int row);
    // Replaces the user message at `row` and answers it again; what followed is dropped.
    bool editAndResend(int row, const QString &text);
    bool deleteMessage(int row);
    bool showVersion(int row, int version);
    void stop();
    void newChat();
    // Shows a stored conversation (the next answer continues it).
    bool openConversation(qint64 id);
    bool renameConversation(qint64 id, const QString &title);
    bool deleteConversation(qint64 id);
    // Reads a chat exported as JSON into the store and opens it; 0 and `error` on failure.
    qint64 importConversation(const QByteArray &json, QString *error);
    // The chat's model file moved: remember the new place (and load it).
    bool relocateConversationModel(qint64 id, const QString &modelPath);
    // Auto-tune the loaded model on the worker: the chat waits (the model is busy) meanwhile.
    bool startTuning(const shoehorn::TuneRequest &request);
    void cancelTuning();

signals:
    void stateChanged(ChatController::State state);
    void conversationsChanged();
    // Another chat (or a new one) is shown: its system prompt and settings changed with it.
    void conversationChanged();
    void modelSettingsChanged();
    void loadProgress(double fraction);
    void loadRetrying(const shoehorn::OomRetry &retry);
    void modelLoaded(const ModelSummary &summary);
    void loadFailed(int errorCode, const QString &detail);
    void generationFailed(int errorCode, const QString &detail);
    void prefillProgress(int done, int total);
    void generationProgress(double tokensPerSecond, int contextUsed, int contextSize);
    void answerFinished(const shoehorn::GenerationStats &stats);
    void tuningProgress(int done, int total, const QString &configuration);
    void tuningFinished(const TuneReport &report);

private:
    void setState(State s);
    void startLoad(QString path); // by value: callers pass m_pendingPath, which it clears
    void onLoaded(const ModelSummary &summary);
    void onLoadFailed(int code, const QString &detail);
    void onDelta(quint64 id, const QString &content, const QString &reasoning);
    void onFinished(quint64 id, const shoehorn::GenerationStats &stats);
    void onFailed(quint64 id, int code, const QString &detail);
    void startAnswer(int row, const std::vector<shoehorn::ChatMessage> &history);
    int appendAnswerRow(); // an empty streaming answer, in the chat and the store
    void ensureConversation(const QString &firstText);
    void storeChatSettings();
    void checkpoint(const QString &state);

    QThread m_thread;
    InferenceWorker *m_worker = nullptr;
    ChatModel *m_chat = nullptr;
    std::atomic<bool> m_cancelLoad{false};
    std::atomic<bool> m_cancelGeneration{false};
    State m_state = State::NoModel;
    ModelSummary m_model;
    QString m_pendingPath;      // a model asked for while another was loading
    quint64 m_requestId = 0;
    int m_answerRow = -1;
    shoehorn::LoadSettings m_load;
    shoehorn::ContextSettings m_context;
    shoehorn::GenerationOptions m_options;
    shoehorn::FitLocks m_locks;
    QString m_systemPrompt;
    ChatStore m_store;
    bool m_storeOpen = false;
    qint64 m_conversation = 0;
    qint64 m_answerMessage = 0;
    qint64 m_answerVersion = 0; // message_versions row of a regenerated answer
    QElapsedTimer m_sinceCheckpoint;
};
