#include "chatlist.h"

#include "asyncdialogs.h"
#include "chatcontroller.h"
#include "conversationlist.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

#include <utility>

ChatList::ChatList(ChatController *controller, ConversationList *conversations, QWidget *parent)
    : QDockWidget(tr("Chats"), parent), m_controller(controller), m_search(new QLineEdit(this)),
      m_view(new QListView(this))
{
    setObjectName(QStringLiteral("chatList"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_search->setObjectName(QStringLiteral("chatSearch"));
    m_search->setPlaceholderText(tr("Search chats"));
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);
    m_view->setObjectName(QStringLiteral("chatListView"));
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    if ((m_model = conversations)) {
        m_model->refresh(); // the store as it is now
        m_view->setModel(m_model);
    }
    layout->addWidget(m_view, 1);
    auto *buttons = new QHBoxLayout;
    auto *newChat = new QPushButton(tr("New"), body);
    auto *rename = new QPushButton(tr("Rename"), body);
    auto *remove = new QPushButton(tr("Delete"), body);
    rename->setObjectName(QStringLiteral("renameChatButton"));
    remove->setObjectName(QStringLiteral("deleteChatButton"));
    buttons->addWidget(newChat);
    buttons->addWidget(rename);
    buttons->addWidget(remove);
    layout->addLayout(buttons);
    setWidget(body);

    m_askTitle = [this](const QString &current, std::function<void(const QString &)> done) {
        AsyncDialogs::text(this, tr("Rename chat"), tr("Title"), current, std::move(done));
    };
    connect(m_search, &QLineEdit::textChanged, this, [this](const QString &t) {
        if (m_model)
            m_model->setSearch(t.trimmed());
    });
    connect(m_view, &QListView::clicked, this, [this](const QModelIndex &i) {
        if (m_model)
            openChat(m_model->idAt(i.row()));
    });
    auto openPending = [this] {
        if (const qint64 id = std::exchange(m_pendingOpen, 0))
            openChat(id);
    };
    connect(controller, &ChatController::answerFinished, this, openPending);
    connect(controller, &ChatController::generationFailed, this, openPending);
    connect(newChat, &QPushButton::clicked, m_controller, &ChatController::newChat);
    connect(rename, &QPushButton::clicked, this, &ChatList::renameCurrent);
    connect(remove, &QPushButton::clicked, this, &ChatList::deleteCurrent);
}

void ChatList::openChat(qint64 id)
{
    if (!m_model || !id)
        return;
    if (m_controller->answering()) {
        m_pendingOpen = id;
        m_controller->stop();
        return;
    }
    if (m_controller->openConversation(id)) {
        const int row = m_model->rowOf(id);
        emit conversationOpened(row >= 0 ? m_model->data(m_model->index(row), ConversationList::ModelPathRole).toString()
                                         : QString());
    }
}

qint64 ChatList::currentId() const
{
    const QModelIndex i = m_view->currentIndex();
    return m_model && i.isValid() ? m_model->idAt(i.row()) : m_controller->currentConversation();
}

void ChatList::renameCurrent()
{
    const qint64 id = currentId();
    if (!id || !m_model)
        return;
    const int row = m_model->rowOf(id);
    m_askTitle(row >= 0 ? m_model->data(m_model->index(row)).toString() : QString(), [this, id](const QString &text) {
        // The chat may be gone meanwhile: renaming an id that is not there is refused and said.
        if (const QString title = text.trimmed(); !title.isEmpty())
            m_controller->renameConversation(id, title);
    });
}

void ChatList::deleteCurrent()
{
    if (const qint64 id = currentId())
        m_controller->deleteConversation(id);
}
