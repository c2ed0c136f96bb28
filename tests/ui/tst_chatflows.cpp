// The chat flows a person goes through in the real window, on the tiny MoE fixture:
// send, stop, regenerate and switch versions, edit and resend, delete, new chat, export and
// import, and the conversation settings.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "../app/smallchat.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatlist.h"
#include "conversationlist.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "chatview.h"
#include "conversationpanel.h"
#include "mainwindow.h"
#include "messageinput.h"
#include "testfixtures.h"
#include "workpool.h"

#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QSemaphore>
#include <QtConcurrent>
#include <QtTest>

#include <chrono>
#include <thread>

using State = ChatModel::State;

class TestChatFlows : public QObject
{
    Q_OBJECT
private:
    struct Window {
        AppCore controllerApp;
        ChatController &controller = *controllerApp.chat();
        LoadedModel &lm = *controllerApp.model();
        std::unique_ptr<MainWindow> window;
        QStringList errors;
    };
    // QVERIFY and QTRY_* in a helper return from the helper only, so the helpers run their
    // checks in a lambda and say through the result whether the test failed; every caller
    // wraps them in QVERIFY, which ends the test at once.
    [[nodiscard]] static bool open(Window &w, const QString &model);
    [[nodiscard]] static bool sendAndWait(Window &w, const QString &text);

private slots:
    void init();
    void sendThenStop();
    void regenerateAndSwitchVersions();
    void editAndResend();
    void deleteMessageAndNewChat();
    void exportAndImport();
    void exportAndImportAtQuit();
    void conversationSettingsFollowTheChat();
    void thinkingToggleReachesTemplate();
    void noThinkingSwitchShowsOff();
    void typedSamplingValuesAreKept();
    void chatKeepsItsSettingsAcrossModels();
};

void TestChatFlows::chatKeepsItsSettingsAcrossModels()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    ConversationPanel *panel = w.window->conversationPanel();
    panel->choosePreset(2); // instruct-general: temperature 0.7
    QVERIFY(sendAndWait(w, "a chat on the MoE"));
    const qint64 chat = w.controller.currentConversation();
    // A second chat on the same model with other settings: the model remembers those.
    QTest::keySequence(w.window.get(), QKeySequence::New);
    panel->choosePreset(0); // thinking-general: temperature 1.0
    QVERIFY(sendAndWait(w, "another chat"));
    // Then another model.
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QSignalSpy loaded(&w.lm, &LoadedModel::modelLoaded);
    w.window->openModel(TestFixtures::instance().tinyThinking());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    // Opening the first chat loads its model, and the chat's own settings stay.
    ChatList *list = w.window->chatList();
    const int row = list->model()->rowOf(chat);
    QTest::mouseClick(list->view()->viewport(), Qt::LeftButton, {},
                      list->view()->visualRect(list->model()->index(row)).center());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 20000);
    QCOMPARE(w.lm.model().path, TestFixtures::instance().tinyMoe());
    QCOMPARE(w.controller.generationOptions().sampling.temperature, 0.7f);
    QCOMPARE(w.controller.generationOptions().sampling.topP, 0.8f);
}

void TestChatFlows::init()
{
    startFresh();
}

bool TestChatFlows::open(Window &w, const QString &model)
{
    [&] {
        configureSmallChat(w.lm, 24, 5);
        w.window = std::make_unique<MainWindow>(w.controllerApp.windowParts());
        w.window->setErrorPresenter([&w](const QString &, const QString &text) { w.errors << text; });
        w.window->setInfoPresenter([](const QString &, const QString &) {});
        w.window->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
        QSignalSpy loaded(&w.lm, &LoadedModel::modelLoaded);
        w.window->openModel(model);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
    }();
    return !QTest::currentTestFailed();
}

bool TestChatFlows::sendAndWait(Window &w, const QString &text)
{
    [&] {
        QSignalSpy finished(&w.controller, &ChatController::answerFinished);
        QTest::keyClicks(w.window->messageInput(), text);
        QTest::keyClick(w.window->messageInput(), Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    }();
    return !QTest::currentTestFailed();
}

void TestChatFlows::sendThenStop()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    ModelSettings s = w.lm.modelSettings();
    s.generation.maxTokens = 100000; // only Stop ends it (or the context), in this chat and the next
    w.lm.setModelSettings(s);
    QSignalSpy finished(&w.controller, &ChatController::answerFinished);
    QTest::keyClicks(w.window->messageInput(), "Tell me a long story");
    QTest::keyClick(w.window->messageInput(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller.chatModel()->message(1).content.isEmpty(), 20000);
    auto *send = w.window->findChild<QPushButton *>("sendButton");
    QCOMPARE(send->text(), QString("Stop"));
    QTest::mouseClick(send, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    const auto &answer = w.controller.chatModel()->message(1);
    QCOMPARE(answer.state, State::Stopped);
    QVERIFY(!answer.content.isEmpty()); // the partial answer is kept
    QVERIFY(w.window->chatView()->toPlainText().contains("Stopped"));
    // Its footer gives the rate of the tokens written before Stop, not 0.0.
    QVERIFY(answer.hasStats && answer.stats.generationTokensPerSecond > 0);
    const QString rate = QString("%1 tok/s").arg(answer.stats.generationTokensPerSecond, 0, 'f', 1);
    QVERIFY2(rate != "0.0 tok/s" && w.window->chatView()->toPlainText().contains(rate), qPrintable(rate));
    // Stored as stopped, with its text.
    const auto stored = w.controllerApp.history()->store()->messages(w.controller.currentConversation());
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored[1].state, QString("stopped"));
    QCOMPARE(stored[1].content, answer.content);

    // Opening another chat while an answer streams: the answer stops (kept), then it opens.
    const qint64 first = w.controller.currentConversation();
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QTest::keyClicks(w.window->messageInput(), "Another long story");
    QTest::keyClick(w.window->messageInput(), Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller.chatModel()->message(1).content.isEmpty(), 20000);
    const qint64 second = w.controller.currentConversation();
    ChatList *list = w.window->chatList();
    const int row = list->model()->rowOf(first);
    QTest::mouseClick(list->view()->viewport(), Qt::LeftButton, {},
                      list->view()->visualRect(list->model()->index(row)).center());
    QTRY_COMPARE_WITH_TIMEOUT(w.controller.currentConversation(), first, 20000);
    QCOMPARE(w.controller.chatModel()->message(0).content, QString("Tell me a long story"));
    const auto interrupted = w.controllerApp.history()->store()->messages(second);
    QCOMPARE(interrupted.size(), 2);
    QCOMPARE(interrupted[1].state, QString("stopped"));
    QVERIFY(!interrupted[1].content.isEmpty());
}

void TestChatFlows::regenerateAndSwitchVersions()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    QVERIFY(sendAndWait(w, "Which experts are on the CPU?"));
    ChatModel *chat = w.controller.chatModel();
    ChatView *view = w.window->chatView();
    const QString first = chat->message(1).content;
    // Regenerate twice with other seeds: three versions.
    for (uint32_t seed : {77u, 78u}) {
        auto o = w.controller.generationOptions();
        o.sampling.seed = seed;
        w.lm.setGenerationOptions(o);
        QSignalSpy finished(&w.controller, &ChatController::answerFinished);
        view->activate(view->actionHref(1, "regenerate"));
        QCOMPARE(w.lm.state(), LoadedModel::State::Generating);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    }
    QCOMPARE(chat->rowCount(), 2);
    QCOMPARE(chat->message(1).versionCount(), 3);
    QCOMPARE(chat->message(1).current, 2);
    const QString third = chat->message(1).content;
    QVERIFY(view->toPlainText().contains("3/3"));
    // ‹ goes back; the first answer is there as it was.
    view->activate(view->actionHref(1, "prev"));
    view->activate(view->actionHref(1, "prev"));
    QCOMPARE(chat->message(1).current, 0);
    QCOMPARE(chat->message(1).content, first);
    QVERIFY(view->toPlainText().contains("1/3"));
    // The store has all three and which one is shown; reopening shows the same.
    const qint64 conv = w.controller.currentConversation();
    w.controller.newChat();
    QVERIFY(w.controller.openConversation(conv));
    QCOMPARE(chat->message(1).versionCount(), 3);
    QCOMPARE(chat->message(1).current, 0);
    QCOMPARE(chat->message(1).content, first);
    QTRY_VERIFY(view->isComplete()); // written into the view a slice at a time
    view->activate(view->actionHref(1, "next"));
    view->activate(view->actionHref(1, "next"));
    QCOMPARE(chat->message(1).content, third);
    QVERIFY(chat->message(1).hasStats); // stats of each version survive
}

void TestChatFlows::editAndResend()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    QVERIFY(sendAndWait(w, "first question"));
    QVERIFY(sendAndWait(w, "second question"));
    ChatModel *chat = w.controller.chatModel();
    QCOMPARE(chat->rowCount(), 4);
    ChatView *view = w.window->chatView();
    // Edit the first question: its text goes into the box; Enter resends it.
    view->activate(view->actionHref(0, "edit"));
    QCOMPARE(w.window->editingRow(), 0);
    MessageInput *input = w.window->messageInput();
    QCOMPARE(input->toPlainText(), QString("first question"));
    input->selectAll();
    QTest::keyClicks(input, "an edited question");
    QSignalSpy finished(&w.controller, &ChatController::answerFinished);
    QTest::keyClick(input, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(w.window->editingRow(), -1);
    // What followed is dropped; the edited question has a new answer.
    QCOMPARE(chat->rowCount(), 2);
    QCOMPARE(chat->message(0).content, QString("an edited question"));
    QCOMPARE(chat->message(1).state, State::Done);
    const auto stored = w.controllerApp.history()->store()->messages(w.controller.currentConversation());
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored[0].content, QString("an edited question"));
    QCOMPARE(stored[1].content, chat->message(1).content);
    // Another chat (or a new one) ends the edit: the row would mean another message.
    view->activate(view->actionHref(0, "edit"));
    QCOMPARE(w.window->editingRow(), 0);
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QCOMPARE(w.window->editingRow(), -1);
    QVERIFY(w.controller.openConversation(w.controllerApp.history()->store()->conversations().first().id));
    QTRY_VERIFY(view->isComplete());
    // Esc leaves editing without sending.
    view->activate(view->actionHref(0, "edit"));
    QTest::keyClick(w.window.get(), Qt::Key_Escape);
    QCOMPARE(w.window->editingRow(), -1);
    QCOMPARE(input->toPlainText(), QString());
}

void TestChatFlows::deleteMessageAndNewChat()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    QVERIFY(sendAndWait(w, "to be deleted"));
    ChatModel *chat = w.controller.chatModel();
    ChatView *view = w.window->chatView();
    const qint64 conv = w.controller.currentConversation();
    view->activate(view->actionHref(1, "delete"));
    QCOMPARE(chat->rowCount(), 1);
    QTRY_COMPARE(w.controllerApp.history()->store()->messages(conv).size(), 1); // deleted on the pool
    QVERIFY(!view->toPlainText().contains("Regenerate"));
    // The question left without its answer can be answered again.
    QVERIFY(view->toPlainText().contains("Answer"));
    QSignalSpy finished(&w.controller, &ChatController::answerFinished);
    view->activate(view->actionHref(0, "regenerate"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(chat->rowCount(), 2);
    QCOMPARE(w.controllerApp.history()->store()->messages(conv).size(), 2);
    view->activate(view->actionHref(1, "delete"));
    // Ctrl+N: a new, empty chat; the old one stays in the list.
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QCOMPARE(chat->rowCount(), 0);
    QCOMPARE(w.controller.currentConversation(), 0);
    QVERIFY(view->toPlainText().trimmed().isEmpty());
    QCOMPARE(w.controllerApp.history()->store()->conversations().size(), 1);
}

void TestChatFlows::exportAndImport()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    w.controller.setSystemPrompt(QStringLiteral("Be brief."));
    QVERIFY(sendAndWait(w, "export me"));
    QTemporaryDir dir;
    QString suggested;
    w.window->setSaveChooser([&](const QString &name, const QString &, std::function<void(const QString &)> done) {
        suggested = name;
        done(dir.filePath("chat.md"));
    });
    w.window->exportChat(); // written on the pool: the status bar says when
    QCOMPARE(suggested, QString("export me.md"));
    QStatusBar *status = w.window->statusBar();
    QTRY_VERIFY2(status->currentMessage().startsWith("Chat exported to"), qPrintable(status->currentMessage()));
    QFile md(dir.filePath("chat.md"));
    QVERIFY(md.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(md.readAll());
    QVERIFY(text.contains("## User\n\nexport me"));
    QVERIFY(text.contains("## System\n\nBe brief."));
    QVERIFY(text.contains(w.controller.chatModel()->message(1).content.trimmed()));
    status->clearMessage();
    w.window->exportChatTo(dir.filePath("chat.json"));
    QTRY_VERIFY2(status->currentMessage().startsWith("Chat exported to"), qPrintable(status->currentMessage()));
    QFile js(dir.filePath("chat.json"));
    QVERIFY(js.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(js.readAll()).object();
    QCOMPARE(root.value("format").toString(), QString("shoehorn-chat"));
    QCOMPARE(root.value("messages").toArray().size(), 2);
    QVERIFY(root.value("messages").toArray().at(1).toObject().contains("stats"));
    // A full disk or a missing folder: a clear message, nothing half written.
    w.window->exportChatTo(dir.filePath("no/such/dir/chat.md"));
    QTRY_COMPARE(w.errors.size(), 1);
    QVERIFY(!status->currentMessage().startsWith("Chat exported to"));
    QVERIFY2(w.errors.last().contains("The file cannot be written"), qPrintable(w.errors.last()));
    // The JSON comes back as a new chat with the same messages.
    const QString answer = w.controller.chatModel()->message(1).content;
    const qint64 firstChat = w.controller.currentConversation();
    w.window->importChatFile(dir.filePath("chat.json")); // read and stored on the pool, then opened
    QTRY_COMPARE(w.controllerApp.history()->store()->conversations().size(), 2);
    QTRY_VERIFY(w.controller.currentConversation() != firstChat);
    QCOMPARE(w.controller.chatModel()->rowCount(), 2);
    QCOMPARE(w.controller.chatModel()->message(1).content, answer);
    QCOMPARE(w.controller.systemPrompt(), QString("Be brief."));
    w.window->importChatFile(dir.filePath("chat.md")); // not JSON: said so
    QTRY_COMPARE(w.errors.size(), 2);
    QVERIFY2(w.errors.last().contains("is not a chat Shoehorn can read: "), qPrintable(w.errors.last()));
    w.window->importChatFile(dir.filePath("gone.json")); // no such file: said so
    QTRY_COMPARE(w.errors.size(), 3);
    QVERIFY2(w.errors.last().contains("The file does not exist"), qPrintable(w.errors.last()));
}

// Quitting while the work pool is busy (pictures decoding, a remote machine probed): an export
// still waiting for a thread is written, not dropped with the pool's queue; an import is stored
// but not opened (that could ask for its model on a session that has stopped).
void TestChatFlows::exportAndImportAtQuit()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    QVERIFY(sendAndWait(w, "kept at quit"));
    QTemporaryDir dir;
    const QString first = dir.filePath("first.json");
    QStatusBar *status = w.window->statusBar();
    w.window->exportChatTo(first);
    QTRY_VERIFY2(status->currentMessage().startsWith("Chat exported to"), qPrintable(status->currentMessage()));
    QSemaphore release;
    const int busy = workPool()->maxThreadCount();
    for (int i = 0; i < busy; ++i)
        (void) QtConcurrent::run(workPool(), [&release] { release.acquire(); });
    const qint64 shown = w.controller.currentConversation();
    w.window->exportChatTo(dir.filePath("second.json"));
    w.window->importChatFile(first);
    std::thread releaser([&release, busy] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        release.release(busy);
    });
    const bool stopped = w.controllerApp.shutdown(5000);
    releaser.join();
    QVERIFY(stopped);
    QVERIFY(QFileInfo(dir.filePath("second.json")).size() > 0);
    QCOMPARE(w.controllerApp.history()->store()->conversations().size(), 2);
    QCOMPARE(w.controller.currentConversation(), shown);
}

void TestChatFlows::conversationSettingsFollowTheChat()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    ConversationPanel *panel = w.window->conversationPanel();
    // Thinking-coding: the values from the model authors.
    QComboBox *preset = panel->presetBox();
    panel->choosePreset(1);
    auto o = w.controller.generationOptions();
    QCOMPARE(o.sampling.temperature, 0.6f);
    QCOMPARE(o.sampling.topP, 0.95f);
    QCOMPARE(o.sampling.topK, 20);
    QCOMPARE(o.sampling.presencePenalty, 0.0f);
    QCOMPARE(preset->currentIndex(), 1);
    // Editing a value makes it Custom.
    panel->findChild<QDoubleSpinBox *>("temperature")->setValue(0.3);
    QCOMPARE(w.controller.generationOptions().sampling.temperature, 0.3f);
    QCOMPARE(preset->currentText(), QString("Custom"));
    // Instruct-general, then a chat: the chat keeps its settings and its system prompt.
    panel->choosePreset(2);
    auto *prompt = panel->findChild<QPlainTextEdit *>("systemPrompt");
    prompt->setPlainText("Answer in French.");
    QTRY_COMPARE(w.controller.systemPrompt(), QString("Answer in French."));
    QVERIFY(sendAndWait(w, "bonjour"));
    const qint64 conv = w.controller.currentConversation();
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QCOMPARE(w.controller.systemPrompt(), QString()); // no default for this model yet
    panel->choosePreset(0); // another preset for the new chat
    QVERIFY(w.controller.openConversation(conv));
    QCOMPARE(w.controller.systemPrompt(), QString("Answer in French."));
    QCOMPARE(w.controller.generationOptions().sampling.temperature, 0.7f);
    QCOMPARE(w.controller.generationOptions().sampling.topP, 0.8f);
    QCOMPARE(prompt->toPlainText(), QString("Answer in French."));
    QCOMPARE(preset->currentIndex(), 2);
    // A per-model default system prompt starts new chats.
    QTest::mouseClick(panel->findChild<QPushButton *>("saveDefaultPrompt"), Qt::LeftButton);
    QTest::keySequence(w.window.get(), QKeySequence::New);
    QCOMPARE(w.controller.systemPrompt(), QString("Answer in French."));
}

void TestChatFlows::thinkingToggleReachesTemplate()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyThinking()));
    // The GGUF suggests sampling values: offered, and a click uses them.
    ConversationPanel *panel = w.window->conversationPanel();
    auto *suggestion = panel->findChild<QLabel *>("modelSuggestion");
    QVERIFY(suggestion->isVisibleTo(panel));
    QVERIFY2(suggestion->text().contains("temperature 0.6") && suggestion->text().contains("top-k 20"),
             qPrintable(suggestion->text()));
    panel->choosePreset(panel->presetBox()->findText("Model's suggestion"));
    QCOMPARE(w.controller.generationOptions().sampling.temperature, 0.6f);
    QCOMPARE(w.controller.generationOptions().sampling.topK, 20);
    QCOMPARE(w.controller.generationOptions().sampling.topP, 0.95f);
    QCOMPARE(panel->presetBox()->currentText(), QString("Model's suggestion"));
    auto *toggle = w.window->conversationPanel()->findChild<QCheckBox *>("enableThinking");
    QVERIFY(toggle->isEnabled()); // this template knows enable_thinking
    toggle->setChecked(false);
    QVERIFY(!w.controller.generationOptions().enableThinking);
    QVERIFY(sendAndWait(w, "no thinking please"));
    QVERIFY(w.controller.chatModel()->message(1).reasoning.isEmpty());
    toggle->setChecked(true);
    QVERIFY(sendAndWait(w, "now think"));
    QVERIFY(!w.controller.chatModel()->message(3).reasoning.isEmpty());
    QVERIFY(w.window->chatView()->toPlainText().contains("Thought for"));
}

// A template without enable_thinking: the box is greyed and shows off (it read "ticked" before,
// as if the model would think), and other edits keep the stored choice for models that have it.
void TestChatFlows::noThinkingSwitchShowsOff()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    QVERIFY(!w.lm.model().supportsThinking);
    QVERIFY(w.controller.generationOptions().enableThinking);
    ConversationPanel *panel = w.window->conversationPanel();
    auto *toggle = panel->findChild<QCheckBox *>("enableThinking");
    QVERIFY(!toggle->isEnabled());
    QVERIFY(!toggle->isChecked());
    QVERIFY(!toggle->toolTip().isEmpty());
    panel->findChild<QDoubleSpinBox *>("temperature")->setValue(0.3);
    QCOMPARE(w.controller.generationOptions().sampling.temperature, 0.3f);
    QVERIFY(w.controller.generationOptions().enableThinking);
}

// Values typed key by key into the sampling boxes: "0.95" was stored as 0.00 (each key's value
// went to the settings and came back into the box under the cursor), "1.35" as 1.30.
void TestChatFlows::typedSamplingValuesAreKept()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyMoe()));
    ConversationPanel *panel = w.window->conversationPanel();
    w.window->show();
    panel->raise();
    QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
    const auto type = [&](const char *box, const QString &text) {
        auto *spin = panel->findChild<QAbstractSpinBox *>(box);
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, text);
        QTest::keyClick(spin, Qt::Key_Enter);
    };
    type("topP", "0.95");
    type("temperature", "1.35");
    type("topK", "45");
    const auto o = w.controller.generationOptions();
    QCOMPARE(o.sampling.topP, 0.95f);
    QCOMPARE(o.sampling.temperature, 1.35f);
    QCOMPARE(o.sampling.topK, 45);
    QCOMPARE(panel->findChild<QDoubleSpinBox *>("topP")->text(), QString("0.95"));
}

QTEST_MAIN(TestChatFlows)
#include "tst_chatflows.moc"
