#pragma once

#include <atomic>
#include <memory>

#include "chatmodel.h"
#include "chatstore.h"

#include <QHash>
#include <QList>
#include <QObject>

#include <functional>

// What opening the chat history found, for the window to say in words (ErrorText::historyProblem).
struct HistoryProblem {
    enum class Kind {
        None,
        ReadOnlyNewer,   // written by a newer Shoehorn: open read-only
        CannotCreate,    // no history, and none can be made: nothing is saved
        CannotMoveAside, // unreadable and cannot be moved aside: nothing is saved
        MovedAside,      // unreadable, moved aside unchanged, a new one started
        MovedAsideNoNew, // unreadable, moved aside, but a new one cannot be made
    };
    Kind kind = Kind::None;
    QString path;      // the history
    QString reason;    // SQLite's reason; empty: its integrity check failed
    QString movedTo;   // where the unreadable history went
    QString newReason; // why a new one could not be made
    bool isNone() const { return kind == Kind::None; }
};

// The chats in SQLite as the controller uses them: typed authors and states, and every write
// checked. Several writes that belong together run in one transaction, rolled back whole when
// one fails. A write that fails is never silent: failed() says what could not be saved.
class ConversationRepository : public QObject
{
    Q_OBJECT
public:
    // What a write that failed was saving (the window words it: ErrorText::historyWrite).
    enum class Write {
        NewChat,
        ChatSettings,
        ChatName,
        DeletingChat,
        ChatModel,
        Question,
        Answer,
        NewVersion,
        EditedQuestion,
        DeletingMessage,
        ShownVersion,
    };
    Q_ENUM(Write)

    explicit ConversationRepository(QObject *parent = nullptr);

    // Opens the history. One that cannot be read (not a database, damaged) is moved aside,
    // unchanged, and a new one started; one of a newer schema opens read-only. Returns what
    // happened (Kind::None when all is well), kept as problem() for the window, which is made
    // later; isOpen() says whether there is a history to use.
    HistoryProblem open(const QString &path);
    bool isOpen() const { return m_open; }
    bool writable() const { return m_open && !m_store.readOnly(); }
    HistoryProblem problem() const { return m_problem; }
    ChatStore *store() { return m_open ? &m_store : nullptr; } // lists and tests read it

    qint64 createConversation(const QString &title, const QString &modelPath, const QString &systemPrompt,
                              const QString &settingsJson);
    ChatStore::Conversation conversation(qint64 id) const;
    // The stored messages with their versions, as the chat model holds them; their pictures carry
    // their type only (see readPicturesInBackground).
    QList<ChatModel::Message> messages(qint64 conversationId) const;
    bool setSettings(qint64 conversationId, const QString &systemPrompt, const QString &settingsJson);
    bool rename(qint64 conversationId, const QString &title);
    bool remove(qint64 conversationId);
    bool setModel(qint64 conversationId, const QString &modelPath);
    shoehorn::Result<qint64> importJson(const QByteArray &json);

    qint64 appendMessage(qint64 conversationId, ChatModel::Author author, const QString &content,
                         ChatModel::State state, const QList<ChatImage> &images = {});

    // A photo's bytes take tens of milliseconds to store or read: these two run on the pool, each
    // with a connection of its own, and answer with a signal carrying the ticket they return (0:
    // nothing to do, the history is not writable or not open). While a question is being stored,
    // a write from the GUI thread would wait for SQLite's lock: the caller writes that chat's
    // answer once questionStored() has come.
    //
    // The question with its pictures, and the empty streaming answer that follows it, as one
    // commit: questionStored() brings both ids (0 and 0 after a failure, said by failed()).
    quint64 storeQuestionInBackground(qint64 conversationId, const QString &content, const QList<ChatImage> &images);
    // The pictures' bytes of a conversation read by messages(): picturesRead() brings them by
    // message id (read here instead when the pool's read fails).
    quint64 readPicturesInBackground(qint64 conversationId);
    // A chat exported as JSON, read from the file and stored as a new conversation (a photo in
    // it is megabytes of base64): imported() brings its id, or why not (ChatJson::readFile's
    // and importJson's errors, FileUnwritable when the history is not writable).
    quint64 importInBackground(const QString &filePath);
    // A chat, or one message, deleted: SQLite reads every page of the pictures it frees (a chat
    // with ten 5 MB photos took 374 ms). removed() says when; failed() why not. 0: not writable.
    quint64 removeInBackground(qint64 conversationId);
    quint64 deleteMessageInBackground(qint64 messageId);
    // Waits for the job with that ticket (0: every one; a local write or read, milliseconds) and
    // delivers its signal now: what the user does next needs it, or Shoehorn is quitting.
    void finishBackgroundWork(quint64 ticket = 0);
    // The streaming checkpoint and the final write of an answer (and of its version row).
    bool saveAnswer(qint64 messageId, qint64 versionId, const ChatModel::Version &answer);
    // A regenerated answer: the shown version is kept (as the first version row when it is
    // the first regeneration) and an empty streaming version starts. Returns its id, 0 on failure.
    qint64 beginVersion(qint64 messageId, const ChatModel::Version *firstVersion, int shownIndex);
    // Edit and resend: the question's new text, and what followed it is dropped.
    bool editQuestion(qint64 conversationId, qint64 messageId, const QString &text);
    bool deleteMessage(qint64 messageId);
    bool setShownVersion(qint64 messageId, int index);

    // The window's connection never copies the WAL into the database inside one of its commits
    // (SQLite's automatic checkpoint: two fsyncs, 6-9 ms measured here, more on a slow disk): every
    // kCheckpointWrites of its writes, a connection on the pool does (PASSIVE: no one waits).
    static constexpr int kCheckpointWrites = 100;

signals:
    // What could not be saved and why: FileUnwritable with SQLite's reason, InvalidArgument naming
    // a row that is not there.
    void failed(ConversationRepository::Write what, const shoehorn::Error &error);
    void questionStored(quint64 ticket, qint64 questionId, qint64 answerId);
    void picturesRead(quint64 ticket, const QHash<qint64, QList<ChatImage>> &pictures);
    void imported(quint64 ticket, const shoehorn::Result<qint64> &conversation);
    void removed(quint64 ticket, bool ok);

private:
    bool check(const ChatStore::Done &done, Write what);
    void wrote(); // counts towards the next checkpoint on the pool
    bool inTransaction(Write what, const std::function<ChatStore::Done()> &writes);

    void openFresh(const QString &path, const QString &why); // fills m_problem
    shoehorn::Error notWritable() const;
    quint64 deleteInBackground(Write what, std::function<ChatStore::Done(ChatStore &)> remove);
    // Runs `job` on the pool and `deliver` with its result here, once (finishBackgroundWork may
    // deliver it first).
    template <class T>
    quint64 inBackground(std::function<T()> job, std::function<void(quint64, const T &)> deliver);

    struct Running {
        quint64 ticket = 0;
        std::function<void()> finish; // waits if need be, then delivers (once)
    };

    ChatStore m_store;
    bool m_open = false;
    HistoryProblem m_problem;
    QString m_path; // the history open now
    quint64 m_lastTicket = 0;
    int m_writesSinceCheckpoint = 0;
    std::shared_ptr<std::atomic_bool> m_checkpointing = std::make_shared<std::atomic_bool>(false);
    QList<Running> m_running;
};
