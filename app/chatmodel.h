#pragma once

#include "chatsession.h"
#include "chattypes.h"

#include <QAbstractListModel>
#include <QElapsedTimer>
#include <QList>

// The messages of the open conversation. Lives on the GUI thread; the controller feeds it
// streamed text, and views append only what is new (see ChatView).
//
// A message can have versions (regenerated answers): the fields of Message are the version
// shown; `versions` holds all of them once there is more than one.
class ChatModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Roles {
        RoleRole = Qt::UserRole + 1,
        ContentRole,
        ReasoningRole,
        StateRole,
        StatsRole,
        VersionRole,      // index of the version shown
        VersionCountRole, // 1 when never regenerated
        ReasoningMsRole,  // how long the thinking took; -1 unknown or still thinking
        NoteRole,         // what a streaming answer waits for ("Reading the prompt: 40%"); not stored
        ImagesRole,       // QList<ChatImage> attached to a user message
    };
    enum class State { Done, Streaming, Stopped, Failed };
    Q_ENUM(State)
    enum class Author { User, Assistant, System };
    Q_ENUM(Author)

    struct Version {
        QString content;
        QString reasoning;
        State state = State::Done;
        bool hasStats = false;
        shoehorn::GenerationStats stats;
        qint64 reasoningMs = -1;
        shoehorn::Error error; // why a Failed answer failed (this session only: not stored)
    };
    struct Message : Version {
        Author author = Author::User;
        qint64 storeId = 0;      // row in ChatStore, 0 when not stored
        QString note;            // see NoteRole
        QList<ChatImage> images; // attached to a user message (the model reads them first)
        QList<Version> versions; // empty, or every version (the shown one may be stale there)
        int current = 0;
        int versionCount() const { return versions.isEmpty() ? 1 : int(versions.size()); }
    };

    explicit ChatModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    static Message make(Author author, const QString &content, State state = State::Done);
    // How an author is stored, exported and given to the chat template: "user", "assistant",
    // "system". authorFromName() returns false for anything else.
    static QString authorName(Author author);
    static bool authorFromName(const QString &name, Author &out);
    // How a state is stored and exported: "done", "streaming", "stopped", "failed". An
    // unknown name, or an answer that was still streaming when Shoehorn stopped, reads as
    // stopped.
    static QString stateName(State state);
    static State stateFromStored(const QString &name);
    int appendMessage(const Message &message);
    void appendText(int row, const QString &content, const QString &reasoning);
    void finish(int row, State state, const shoehorn::GenerationStats *stats, const shoehorn::Error &error = {});
    // Keeps what is shown as a version and starts an empty streaming one (regenerate).
    void beginNewVersion(int row);
    void setCurrentVersion(int row, int version);
    void setContent(int row, const QString &content); // edit
    void setStoreId(int row, qint64 id);
    void setImages(int row, const QList<ChatImage> &images); // their bytes, read after the text
    void setNote(int row, const QString &note);
    void removeMessage(int row);
    void truncate(int fromRow); // drops fromRow and everything after it
    void clear();
    const Message &message(int row) const { return m_messages.at(row); }
    const QList<Message> &messages() const { return m_messages; }
    // The finished messages before `endRow` (all when -1), as the model is given them.
    ChatHistory history(const QString &systemPrompt, int endRow = -1) const;

private:
    QList<Message> m_messages;
    QElapsedTimer m_thinking; // since the first reasoning text of the streaming answer
};
