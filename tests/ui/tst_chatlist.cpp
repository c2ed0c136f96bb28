// The Chats list in the window: search, rename, delete, what it highlights, and a history that
// cannot be read.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "mainwindow.h"
#include "../app/smallchat.h"
#include "messageinput.h"
#include "chatlist.h"
#include "chatview.h"
#include "chatstore.h"
#include "conversationlist.h"
#include "testfixtures.h"

#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QtTest>

class TestChatList : public QObject
{
    Q_OBJECT
private:
    static void configure(LoadedModel &c) { configureSmallChat(c, 64, 11); }
    // Two stored chats: "Planning the GPU" and "Recipes", whose answer was cut off by a kill.
    struct TwoChats {
        qint64 planning = 0;
        qint64 recipes = 0;
    };
    static TwoChats storeTwoChats(ChatStore *store);
    static void clickChat(ChatList *chats, qint64 id);
    // The id of the one chat highlighted, 0 for none highlighted, -n for n highlighted.
    static qint64 highlightedChat(ChatList *chats);

private slots:
    void init() { startFresh(); }
    void chatListSearchRenameDelete();
    void newChatHighlightsNothing();
    void brokenHistoryIsReported();
};

void TestChatList::brokenHistoryIsReported()
{
    // A damaged chats.sqlite: the window says it was moved aside and a new one started.
    {
        QFile f(ChatStore::defaultPath());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a database at all");
    }
    AppCore cApp;
    MainWindow w(cApp.windowParts());
    QStringList shown;
    w.setErrorPresenter([&](const QString &title, const QString &text) { shown << title + ": " + text; });
    w.show();
    QTRY_COMPARE(shown.size(), 1);
    QVERIFY2(shown.first().contains("moved") && shown.first().contains(".unreadable-"), qPrintable(shown.first()));
    QVERIFY(cApp.history()->store()); // a new history works
    // A write that fails says what was being saved, in SQLite's words (a typed error in between).
    const qint64 chat = cApp.history()->createConversation("kept", {}, {}, {});
    QVERIFY(chat);
    for (const QString &name : QSqlDatabase::connectionNames())
        if (name.startsWith("chatstore-"))
            QVERIFY(QSqlQuery(QSqlDatabase::database(name)).exec("PRAGMA query_only = ON"));
    QVERIFY(!cApp.chat()->renameConversation(chat, "renamed"));
    QTRY_COMPARE(shown.size(), 2);
    QVERIFY2(shown.last().startsWith("Chat history not saved: Shoehorn could not save the chat's new name in the "
                                     "chat history: attempt to write a readonly database"),
             qPrintable(shown.last()));
    const QDir dir = QFileInfo(ChatStore::defaultPath()).dir();
    for (const QString &f : dir.entryList({"chats.sqlite.unreadable-*"}))
        QFile::remove(dir.filePath(f));
}

void TestChatList::chatListSearchRenameDelete()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    LoadedModel &lm = *cApp.model();
    configure(lm);
    ChatStore *store = cApp.history()->store();
    const TwoChats two = storeTwoChats(store);
    QVERIFY(two.planning && two.recipes);
    MainWindow w(cApp.windowParts());
    QString askedToLocate;
    w.setLocateChooser([&](const QString &missing, const std::function<void(const QString &)> &done) {
        askedToLocate = missing;
        done(QString()); // the user cancels
    });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ChatList *chats = w.chatList();
    QVERIFY(chats->isVisible()); // chats exist: the list is in front
    QAbstractItemModelTester tester(chats->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(chats->model()->rowCount(), 2);
    // Search finds titles and message text.
    auto *search = chats->findChild<QLineEdit *>("chatSearch");
    QTest::keyClicks(search, "experts");
    QTRY_COMPARE(chats->model()->rowCount(), 1); // searched on the work pool
    search->clear();
    // Click opens a chat; the interrupted answer shows as stopped and stays in the history.
    clickChat(chats, two.recipes);
    QCOMPARE(c.currentConversation(), two.recipes);
    QCOMPARE(askedToLocate, QString("/m.gguf")); // the model moved: the user is offered to locate it
    QCOMPARE(c.chatModel()->rowCount(), 2);
    QVERIFY(w.findChild<QTextBrowser *>()->isVisible()); // the chat page is shown
    QCOMPARE(c.chatModel()->message(1).state, ChatModel::State::Stopped);
    // written a few milliseconds of the event loop's turn at a time: on a slow machine a turn later
    QTRY_VERIFY(w.findChild<QTextBrowser *>()->toPlainText().contains("half an answer"));
    // Rename through the seam, then delete.
    chats->setTitleAsker([](const QString &, std::function<void(const QString &)> done) { done("Soup recipes"); });
    QTest::mouseClick(chats->findChild<QPushButton *>("renameChatButton"), Qt::LeftButton);
    QCOMPARE(store->conversations("Soup recipes").size(), 1);
    // The open chat is the one highlighted, and the one Delete asks about; "No" keeps it.
    const auto selected = [chats] { return highlightedChat(chats); };
    QCOMPARE(selected(), two.recipes);
    QString asked;
    bool answer = false;
    chats->setDeleteAsker([&](const QString &title, std::function<void(bool)> done) {
        asked = title;
        done(answer);
    });
    QTest::mouseClick(chats->findChild<QPushButton *>("deleteChatButton"), Qt::LeftButton);
    QCOMPARE(asked, QString("Soup recipes"));
    QCOMPARE(chats->model()->rowCount(), 2);
    // The right-click menu is about the chat clicked, not the one shown, and opens nothing.
    emit chats->view()->customContextMenuRequested(
        chats->view()->visualRect(chats->model()->index(chats->model()->rowOf(two.planning))).center());
    QMenu *menu = nullptr;
    QTRY_VERIFY((menu = chats->findChild<QMenu *>()));
    QCOMPARE(menu->actions().size(), 2);
    menu->actions().at(1)->trigger(); // Delete…, answered No
    QCOMPARE(asked, QString("Planning the GPU"));
    QCOMPARE(c.currentConversation(), two.recipes);
    menu->close();
    answer = true;
    chats->view()->setFocus();
    QTest::keyClick(chats->view(), Qt::Key_Delete); // the list's own key, as the button
    QTRY_COMPARE(chats->model()->rowCount(), 1); // deleted on the work pool
    // Waiting for it let the closed menu's deactivation through (offscreen: no window is active
    // after a popup closes): the window is active again, as a person's next click makes it.
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QCOMPARE(c.chatModel()->rowCount(), 0);
    QCOMPARE(c.currentConversation(), 0);
    QCOMPARE(selected(), qint64(0)); // a new chat: nothing highlighted
}

TestChatList::TwoChats TestChatList::storeTwoChats(ChatStore *store)
{
    const auto a = store->createConversation("Planning the GPU", "/m.gguf", "");
    const auto b = store->createConversation("Recipes", "/m.gguf", "");
    if (!a || !b || !store->appendMessage(*a, ChatStore::message(*a, "user", "how many experts fit?", "done")) ||
        !store->appendMessage(*b, ChatStore::message(*b, "user", "soup", "done")) ||
        // Shoehorn was killed mid-answer:
        !store->appendMessage(*b, ChatStore::message(*b, "assistant", "half an answer", "streaming")))
        return {};
    return {*a, *b};
}

void TestChatList::clickChat(ChatList *chats, qint64 id)
{
    QTest::mouseClick(chats->view()->viewport(), Qt::LeftButton, {},
                      chats->view()->visualRect(chats->model()->index(chats->model()->rowOf(id))).center());
}

qint64 TestChatList::highlightedChat(ChatList *chats)
{
    const QModelIndexList rows = chats->view()->selectionModel()->selectedRows();
    return rows.size() == 1 ? chats->model()->idAt(rows.front().row()) : qint64(-rows.size());
}

// Open a chat, then Ctrl+N: nothing is highlighted (Delete there would delete the chat left),
// and the keys go to the message box.
void TestChatList::newChatHighlightsNothing()
{
    AppCore cApp;
    ChatController &c = *cApp.chat();
    configure(*cApp.model());
    const TwoChats two = storeTwoChats(cApp.history()->store());
    QVERIFY(two.planning && two.recipes);
    MainWindow w(cApp.windowParts());
    w.setLocateChooser([](const QString &, const std::function<void(const QString &)> &done) { done(QString()); });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    ChatList *chats = w.chatList();
    clickChat(chats, two.planning);
    QCOMPARE(highlightedChat(chats), two.planning);
    QTest::keySequence(&w, QKeySequence::New);
    QCOMPARE(c.currentConversation(), 0);
    QCOMPARE(highlightedChat(chats), qint64(0));
    QTRY_VERIFY(w.findChild<MessageInput *>()->hasFocus());
    bool asked = false;
    chats->setDeleteAsker([&](const QString &, std::function<void(bool)> done) {
        asked = true;
        done(true);
    });
    QTest::mouseClick(chats->findChild<QPushButton *>("deleteChatButton"), Qt::LeftButton);
    QVERIFY(!asked);
    QCOMPARE(chats->model()->rowCount(), 2);
}

QTEST_MAIN(TestChatList)
#include "tst_chatlist.moc"
