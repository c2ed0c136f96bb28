// The status strip's activity line: it says what the model is busy with (reading the prompt,
// writing, auto-tune) and is cleared when the model is ready again without an answer's figures.
#include "appcore.h"
#include "chatcontroller.h"
#include "inferencesession.h"
#include "loadedmodel.h"
#include "statusstrip.h"
#include "testsettings.h"
#include "../app/fakeworker.h"

#include <QLabel>
#include <QProgressBar>
#include <QSignalSpy>
#include <QtTest>

class TestStatusStrip : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void busyLineGoesWhenTheModelIsReady();
    void figuresFollowTheChatShown();
};

// "The model is busy: auto-tune is running." stayed after the tune, "Reading the prompt…" after an
// answer that failed (found using the window); an answer that ends keeps its figures.
void TestStatusStrip::busyLineGoesWhenTheModelIsReady()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    StatusStrip strip(&lm, cApp.chat());
    auto *stats = strip.findChild<QLabel *>("statsLabel");
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/a.gguf");
    QTRY_COMPARE(loaded.count(), 1);

    worker->tuneMs = 200;
    QVERIFY(!cApp.session()->startTuning({}));
    QTRY_VERIFY(stats->text().contains("auto-tune is running"));
    QTRY_COMPARE_WITH_TIMEOUT(lm.state(), LoadedModel::State::Ready, 5000);
    QCOMPARE(stats->text(), QString());

    worker->tokens = 3;
    QVERIFY(cApp.chat()->send("hello"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QTRY_VERIFY2(stats->text().startsWith("Last answer: "), qPrintable(stats->text()));

    worker->failAfter = 0;
    QVERIFY(cApp.chat()->send("again"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QCOMPARE(stats->text(), QString());
}

// The context bar and the last answer's speed are the chat's shown: a new chat read "context 2047 /
// 2048" and the speed of the chat before, another stored chat the figures of the one before.
void TestStatusStrip::figuresFollowTheChatShown()
{
    auto *worker = new FakeWorker;
    AppCore cApp{std::unique_ptr<Worker>(worker)};
    LoadedModel &lm = *cApp.model();
    ChatController &chat = *cApp.chat();
    StatusStrip strip(&lm, &chat);
    auto *stats = strip.findChild<QLabel *>("statsLabel");
    auto *bar = strip.findChild<QProgressBar *>("contextBar");
    QSignalSpy loaded(&lm, &LoadedModel::modelLoaded);
    lm.openModel("/models/a.gguf");
    QTRY_COMPARE(loaded.count(), 1);
    const int size = lm.model().contextSize;
    worker->tokens = 3;
    QVERIFY(chat.send("one"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QVERIFY(chat.send("two"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    const qint64 first = chat.currentConversation();
    QCOMPARE(bar->text(), QString("context %1 / %2").arg(33).arg(size)); // 3 messages, 3 tokens
    chat.newChat();
    QCOMPARE(bar->text(), QString("context 0 / %1").arg(size));
    QCOMPARE(stats->text(), QString());
    worker->tokens = 5;
    QVERIFY(chat.send("another"));
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QCOMPARE(bar->text(), QString("context 15 / %1").arg(size));
    QVERIFY(chat.openConversation(first));
    QCOMPARE(bar->text(), QString("context 33 / %1").arg(size));
    QVERIFY2(stats->text().startsWith("Last answer: "), qPrintable(stats->text()));
    // Ctrl+N while an answer is written: its late end does not fill the new chat's strip (review).
    worker->tokens = 200;
    worker->tokenMs = 5;
    QSignalSpy finished(&chat, &ChatController::answerFinished);
    QVERIFY(chat.send("a long one"));
    QTRY_VERIFY(chat.chatModel()->message(chat.chatModel()->rowCount() - 1).content.size() > 4);
    chat.newChat();
    QTRY_COMPARE(finished.count(), 1);
    QTRY_COMPARE(lm.state(), LoadedModel::State::Ready);
    QCOMPARE(bar->text(), QString("context 0 / %1").arg(size));
    QCOMPARE(stats->text(), QString());
}

QTEST_MAIN(TestStatusStrip)
#include "tst_statusstrip.moc"
