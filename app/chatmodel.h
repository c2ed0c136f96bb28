#pragma once

#include "chatsession.h"

#include <QAbstractListModel>
#include <QList>

// The messages of the open conversation. Lives on the GUI thread; the controller feeds it
// streamed text, and views append only what is new (see contentLength()).
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
    };
    enum class State { Done, Streaming, Stopped, Failed };
    Q_ENUM(State)

    struct Message {
        QString role;
        QString content;
        QString reasoning;
        State state = State::Done;
        bool hasStats = false;
        shoehorn::GenerationStats stats;
    };

    explicit ChatModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    int appendMessage(const Message &message);
    void appendText(int row, const QString &content, const QString &reasoning);
    void finish(int row, State state, const shoehorn::GenerationStats *stats);
    void clear();
    const Message &message(int row) const { return m_messages.at(row); }
    // The finished messages, as the engine wants them (system prompt first if set).
    std::vector<shoehorn::ChatMessage> history(const QString &systemPrompt) const;

private:
    QList<Message> m_messages;
};
