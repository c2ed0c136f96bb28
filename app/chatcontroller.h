#pragma once

#include "chatmodel.h"
#include "chatstore.h"
#include "conversationrepository.h"
#include "chattypes.h"
#include "inferencesession.h"
#include "promptprogress.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>

class LoadedModel;

// The open conversation: what the chat shows (ChatModel), what is stored (ConversationRepository)
// and the answers the loaded model writes into it (InferenceSession's chat slot), kept in step.
// Which model that is and its settings are LoadedModel's. GUI-thread object; the UI calls it.
// AppCore makes it and owns what it works with.
class ChatController : public QObject
{
    Q_OBJECT
public:
    // A new chat's title, from its first question: its words without Markdown's marks, at most 60
    // characters.
    static QString autoTitle(const QString &firstText);
    using State = InferenceSession::State;
    using ImportDone = std::function<void(const shoehorn::Result<qint64> &conversation)>;

    // The session answers in the chat's slot; the model is what it answers with; the repository
    // stores the conversations (it may have failed to open: then nothing is stored). All belong
    // to the caller (AppCore).
    ChatController(InferenceSession *session, LoadedModel *model, ConversationRepository *repo,
                   QObject *parent = nullptr);
    ~ChatController() override;

    ChatModel *chatModel() const { return m_chat; }
    qint64 currentConversation() const { return m_conversation; }
    // An answer is streaming into the chat (also while a model switch waits for it to stop).
    bool answering() const { return m_answerRow >= 0; }
    // The sampling settings the open chat answers with (the model's, or the chat's own).
    shoehorn::GenerationOptions generationOptions() const;

    QString systemPrompt() const { return m_systemPrompt; }
    // The open chat's system prompt; stored with the chat.
    void setSystemPrompt(const QString &s);
    QString conversationTitle() const;
    // The open chat whole in the chat model: a question still being stored and pictures still
    // being read from the history (milliseconds) come first. For reading all of it (export).
    void completeChat() { settleBackgroundWork(true); }

public slots:
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
    // Reads a chat exported as JSON into the store (on the pool) and opens it; `done` is called
    // here with its id or why not (ConversationRepository::importInBackground's errors), unless
    // `context` went first.
    void importConversation(const QString &filePath, QObject *context, ImportDone done);
    // The application quits: chats still being imported are stored, but neither opened nor
    // reported (opening one could ask for its model on a session that has stopped).
    void forgetImports() { m_importing.clear(); }
    // The chat's model file moved: remember the new place (the caller opens it through LoadedModel).
    bool relocateConversationModel(qint64 id, const QString &modelPath);

signals:
    void conversationsChanged();
    // Another chat (or a new one) is shown: its system prompt and settings changed with it.
    void conversationChanged();
    void generationFailed(const shoehorn::Error &error);
    void prefillProgress(int done, int total);
    void generationProgress(double tokensPerSecond, int contextUsed, int contextSize);
    void answerFinished(const shoehorn::GenerationStats &stats);
    // The chat history could not be written: `what` it was saving, and why (ConversationRepository::failed).
    void storageFailed(ConversationRepository::Write what, const shoehorn::Error &error);

private:
    State state() const { return m_session->state(); }
    void connectSession();
    void onModelLoaded(const ModelSummary &summary);
    void onDelta(const QString &content, const QString &reasoning);
    void onFinished(const shoehorn::GenerationStats &stats);
    void onFailed(const shoehorn::Error &error);
    void endAnswer(ChatModel::State state, const shoehorn::GenerationStats *stats, const shoehorn::Error &error = {});
    void startAnswer(int row, ChatHistory history);
    int appendAnswerRow(); // an empty streaming answer, in the chat and the store
    void ensureConversation(const QString &firstText);
    void storeChatSettings();
    void checkpoint();
    void onQuestionStored(quint64 ticket, qint64 questionId, qint64 answerId);
    void onPicturesRead(quint64 ticket, const QHash<qint64, QList<ChatImage>> &pictures);
    void onImported(quint64 ticket, const shoehorn::Result<qint64> &conversation);
    void onRemoved(quint64 ticket);
    void settleBackgroundWork(bool forATurn = false);

    ChatModel *m_chat = nullptr;
    InferenceSession *m_session = nullptr;
    LoadedModel *m_model = nullptr;
    ConversationRepository *m_repo = nullptr;
    QString m_systemPrompt;
    int m_answerRow = -1;
    qint64 m_conversation = 0;
    qint64 m_answerMessage = 0;
    qint64 m_answerVersion = 0; // message_versions row of a regenerated answer
    // A question with pictures being stored on the pool: its rows in the chat, the answer's writes
    // waiting for their ids.
    struct Storing {
        quint64 ticket = 0;
        int questionRow = -1;
        int answerRow = -1;
    };
    Storing m_storing;
    quint64 m_readingPictures = 0; // the open chat's pictures, their bytes still being read
    struct Importing {
        QPointer<QObject> context;
        ImportDone done;
    };
    QHash<quint64, Importing> m_importing; // chats being imported on the pool, by ticket
    struct Deleting {
        qint64 conversation = 0;
        bool whole = false; // the chat, not one of its messages
    };
    QHash<quint64, Deleting> m_deleting; // being deleted on the pool, by ticket
    QElapsedTimer m_sinceCheckpoint;
    PromptProgress m_prompt;
};
