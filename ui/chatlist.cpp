#include "chatlist.h"

#include "asyncdialogs.h"
#include "chatcontroller.h"
#include "conversationlist.h"

#include <QAction>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
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
    buildActions(body);
    setWidget(body);

    m_askTitle = [this](const QString &current, std::function<void(const QString &)> done) {
        AsyncDialogs::text(this, tr("Rename chat"), tr("Title"), current, std::move(done));
    };
    m_askDelete = [this](const QString &title, std::function<void(bool)> done) {
        AsyncDialogs::ask(this, tr("Delete chat"),
                          tr("Delete the chat \u201c%1\u201d and all its messages? This cannot be undone.").arg(title),
                          std::move(done));
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
    // The highlight follows the chat shown, whoever changed it (New, a deletion, a search, the
    // first message storing a new chat): Delete and Rename act on the chat the user sees.
    connect(controller, &ChatController::conversationChanged, this, &ChatList::selectOpenChat);
    connect(controller, &ChatController::conversationsChanged, this, &ChatList::selectOpenChat);
    if (m_model)
        connect(m_model, &QAbstractItemModel::modelReset, this, &ChatList::selectOpenChat);
    selectOpenChat();
}

void ChatList::buildActions(QWidget *body)
{
    auto *buttons = new QHBoxLayout;
    auto *newChat = new QPushButton(tr("New"), body);
    auto *rename = new QPushButton(tr("Rename"), body);
    auto *remove = new QPushButton(tr("Delete"), body);
    rename->setObjectName(QStringLiteral("renameChatButton"));
    remove->setObjectName(QStringLiteral("deleteChatButton"));
    buttons->addWidget(newChat);
    buttons->addWidget(rename);
    buttons->addWidget(remove);
    static_cast<QVBoxLayout *>(body->layout())->addLayout(buttons);
    connect(newChat, &QPushButton::clicked, m_controller, &ChatController::newChat);
    connect(rename, &QPushButton::clicked, this, &ChatList::renameCurrent);
    connect(remove, &QPushButton::clicked, this, &ChatList::deleteCurrent);
    // The list's own keys (F2, Delete) and a right-click menu, as file managers and chat apps have.
    auto *renameAction = new QAction(tr("Rename…"), m_view);
    renameAction->setShortcut(Qt::Key_F2);
    auto *deleteAction = new QAction(tr("Delete…"), m_view);
    deleteAction->setShortcut(QKeySequence::Delete);
    for (QAction *a : {renameAction, deleteAction}) {
        a->setShortcutContext(Qt::WidgetShortcut);
        m_view->addAction(a);
    }
    connect(renameAction, &QAction::triggered, this, &ChatList::renameCurrent);
    connect(deleteAction, &QAction::triggered, this, &ChatList::deleteCurrent);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QListView::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid() || !m_model)
            return;
        // About the chat clicked, which need not be the one shown (nor is opened: an answer
        // being written goes on).
        const qint64 id = m_model->idAt(index.row());
        auto *menu = new QMenu(this); // a popup, not exec(): no nested event loop
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->addAction(tr("Rename…"), this, [this, id] { renameChat(id); });
        menu->addAction(tr("Delete…"), this, [this, id] { deleteChat(id); });
        menu->popup(m_view->viewport()->mapToGlobal(pos));
    });
}

void ChatList::selectOpenChat()
{
    const int row = m_model ? m_model->rowOf(m_controller->currentConversation()) : -1;
    QItemSelectionModel *selection = m_view->selectionModel();
    if (!selection) // no history: no model, nothing listed
        return;
    if (row < 0)
        selection->clear();
    else
        selection->setCurrentIndex(m_model->index(row), QItemSelectionModel::ClearAndSelect);
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

QString ChatList::titleOf(qint64 id) const
{
    const int row = m_model ? m_model->rowOf(id) : -1;
    return row >= 0 ? m_model->data(m_model->index(row)).toString() : QString();
}

void ChatList::renameCurrent()
{
    renameChat(currentId());
}

void ChatList::renameChat(qint64 id)
{
    if (!id || !m_model)
        return;
    m_askTitle(titleOf(id), [this, id](const QString &text) {
        // The chat may be gone meanwhile: renaming an id that is not there is refused and said.
        if (const QString title = text.trimmed(); !title.isEmpty())
            m_controller->renameConversation(id, title);
    });
}

void ChatList::deleteCurrent()
{
    deleteChat(currentId());
}

void ChatList::deleteChat(qint64 id)
{
    if (!id)
        return;
    m_askDelete(titleOf(id), [this, id](bool yes) {
        if (yes) // the chat may be gone meanwhile: deleting an id that is not there changes nothing
            m_controller->deleteConversation(id);
    });
}
