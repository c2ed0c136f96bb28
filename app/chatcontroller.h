#pragma once

#include "chatmodel.h"
#include "chatstore.h"
#include "chattypes.h"
#include "inferencesession.h"
#include "modelsettings.h"
#include "promptprogress.h"
#include "tuningstore.h"

#include <QElapsedTimer>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

class ConversationList;
class ConversationRepository;
class Worker;

// The open conversation: what the chat shows (ChatModel), what is stored (ConversationRepository)
// and what the model does (InferenceSession), kept in step. GUI-thread object; the UI calls it.
// AppCore makes it and owns what it works with.
class ChatController : public QObject
{
    Q_OBJECT
public:
    using State = InferenceSession::State;

    // The session runs the model; it belongs to the caller (AppCore).
    explicit ChatController(InferenceSession *session, QObject *parent = nullptr);
    ~ChatController() override;
    // Quitting: stops what runs, and once the worker has ended, saves its last results (an
    // answer stopped mid-way is stored as stopped). False if the worker did not end in time.
    bool shutdown(int milliseconds);

    ChatModel *chatModel() const { return m_chat; }
    // Conversations are stored as they happen; null when the database could not be opened.
    ChatStore *store();
    // The stored chats as a list model, kept up to date (what the chat list shows); null when
    // the database could not be opened.
    ConversationList *conversations() const { return m_conversations; }
    // What went wrong opening the chat history (moved aside, read-only, not saved); empty if nothing.
    QString storageProblem() const;
    qint64 currentConversation() const { return m_conversation; }
    InferenceSession *session() const { return m_session; }
    State state() const { return m_session->state(); }
    const ModelSummary &model() const { return m_session->model(); }
    bool hasModel() const { return m_session->hasModel(); }
    // The file of the load in progress, or of the last one (whoever started it: the window, the
    // offload panel, a reload after tuning, a stored chat's model).
    QString loadingPath() const { return m_loadingPath; }
    // An answer is streaming into the chat (also while a model switch waits for it to stop).
    bool answering() const { return m_answerRow >= 0; }

    shoehorn::LoadSettings loadSettings() const { return m_settings.load; }
    void setLoadSettings(const shoehorn::LoadSettings &s) { m_settings.load = s; }
    shoehorn::ContextSettings contextSettings() const { return m_settings.context; }
    void setContextSettings(const shoehorn::ContextSettings &s) { m_settings.context = s; }
    shoehorn::GenerationOptions generationOptions() const { return m_settings.generation; }
    void setGenerationOptions(const shoehorn::GenerationOptions &o) { m_settings.generation = o; }
    // All per-model settings at once (what the offload panel edits); stored per model file.
    ModelSettings modelSettings() const { return m_settings; }
    void setModelSettings(const ModelSettings &s);
    // The speculation a model runs with `s`: its own choice, or for "Auto" what auto-tune chose
    // for that file on this machine (the resolver the composition root gives), else off.
    using SpeculationResolver = std::function<std::optional<shoehorn::SpeculationSettings>(const QString &path)>;
    void setAutoSpeculation(SpeculationResolver resolver) { m_autoSpeculation = std::move(resolver); }
    shoehorn::SpeculationSettings speculationFor(const QString &path, const ModelSettings &s) const;
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
    // Images need a model that can see them (a projector loaded); else false.
    bool send(const QString &text, const QList<ChatImage> &images = {});
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
    // Reads a chat exported as JSON into the store and opens it (ChatJson::importJson's errors).
    shoehorn::Result<qint64> importConversation(const QByteArray &json);
    // The chat's model file moved: remember the new place (and load it).
    bool relocateConversationModel(qint64 id, const QString &modelPath);

signals:
    void stateChanged(InferenceSession::State state);
    void conversationsChanged();
    // Another chat (or a new one) is shown: its system prompt and settings changed with it.
    void conversationChanged();
    void modelSettingsChanged();
    void loadProgress(double fraction);
    void loadRetrying(const shoehorn::OomRetry &retry);
    void modelLoaded(const ModelSummary &summary);
    void loadFailed(const shoehorn::Error &error);
    void generationFailed(const shoehorn::Error &error);
    void prefillProgress(int done, int total);
    void generationProgress(double tokensPerSecond, int contextUsed, int contextSize);
    void answerFinished(const shoehorn::GenerationStats &stats);
    // The chat history could not be written: `what` names it, `why` is SQLite's reason.
    void storageFailed(const QString &what, const QString &why);

private:
    void connectSession();
    void applySettings(const ModelSettings &s);
    void onLoaded(const ModelSummary &summary);
    void onDelta(const QString &content, const QString &reasoning);
    void onFinished(const shoehorn::GenerationStats &stats);
    void onFailed(const shoehorn::Error &error);
    void endAnswer(ChatModel::State state, const shoehorn::GenerationStats *stats);
    void startAnswer(int row, const std::vector<shoehorn::ChatMessage> &history);
    int appendAnswerRow(); // an empty streaming answer, in the chat and the store
    void ensureConversation(const QString &firstText);
    void storeChatSettings();
    void checkpoint();

    ChatModel *m_chat = nullptr;
    ConversationRepository *m_repo = nullptr;
    ConversationList *m_conversations = nullptr;
    InferenceSession *m_session = nullptr;
    ModelSettings m_settings;
    QString m_systemPrompt;
    QString m_loadingPath;
    int m_answerRow = -1;
    qint64 m_conversation = 0;
    qint64 m_answerMessage = 0;
    qint64 m_answerVersion = 0; // message_versions row of a regenerated answer
    QElapsedTimer m_sinceCheckpoint;
    PromptProgress m_prompt;
    SpeculationResolver m_autoSpeculation;
};
