#pragma once

#include <QHash>
#include <QTextBrowser>

class ChatModel;

// Shows the conversation. Streaming appends only the new characters at the end of the
// document; whole messages are laid out once, when they are inserted.
class ChatView : public QTextBrowser
{
    Q_OBJECT
public:
    explicit ChatView(QWidget *parent = nullptr);
    void setChatModel(ChatModel *model);

private:
    void rebuild();
    void appendMessage(int row);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);
    void appendTail(int row);
    void writeFooter(int row);
    QString roleTitle(const QString &role) const;

    ChatModel *m_model = nullptr;
    struct Rendered {
        qsizetype content = 0;
        qsizetype reasoning = 0;
        bool footer = false;
    };
    QList<Rendered> m_rendered;
};
