// A chat template that passes the first-open check but spins when a message contains a word, in
// the real window: the turn's template renders in the helper process, so Stop (Esc) ends it
// within 200 ms and the window is ready again, and a turn left alone ends after the check's
// 5 s with a message naming the cause. The question is stored, and the next message answers.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatstore.h"
#include "testfixtures.h"
#include "mainwindow.h"
#include "messageinput.h"

#include <QElapsedTimer>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

class TestTemplateSpin : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void stopEndsTheTemplateAtOnce();
    void aTemplateThatNeverEndsSaysWhy();

private:
    void send(const QString &text);
    AppCore *m_core = nullptr;
    ChatController *m_controller = nullptr;
    MainWindow *m_window = nullptr;
    QStringList m_errors;
    QStringList m_asked;
};

void TestTemplateSpin::init()
{
    startFresh();
    const QString model = TestFixtures::instance().withTemplate(QStringLiteral("spins-on-a-word.gguf"), "{% for m in messages %}{% if 'spin' in m.content %}{% for a in range(100000) %}"
                        "{% for b in range(100000) %}{% endfor %}{% endfor %}{% endif %}"
                        "<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}");
    m_core = new AppCore;
    m_controller = m_core->chat();
    shoehorn::GenerationOptions o;
    o.maxTokens = 16; // the answers after the trap only need to arrive
    m_core->model()->setGenerationOptions(o);
    m_window = new MainWindow(m_core->windowParts());
    m_errors.clear();
    m_asked.clear();
    m_window->setQuitAsker([this](const QString &text, std::function<void(bool)> done) {
        m_asked << text;
        done(false);
    });
    m_window->setErrorPresenter([this](const QString &title, const QString &text) { m_errors << title + "\n" + text; });
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QSignalSpy loaded(m_core->model(), &LoadedModel::modelLoaded);
    m_window->openModel(model);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000); // the check's sample chats do not spin
}

void TestTemplateSpin::cleanup()
{
    delete m_window;
    delete m_core;
}

void TestTemplateSpin::send(const QString &text)
{
    m_window->messageInput()->setPlainText(text);
    m_window->findChild<QPushButton *>(QStringLiteral("sendButton"))->click();
}

void TestTemplateSpin::stopEndsTheTemplateAtOnce()
{
    send(QStringLiteral("please spin"));
    QTRY_COMPARE(m_core->model()->state(), LoadedModel::State::Generating);
    QTest::qWait(300);
    QElapsedTimer t;
    t.start();
    QTest::keyClick(m_window, Qt::Key_Escape); // Stop
    while (m_core->model()->state() != LoadedModel::State::Ready && t.elapsed() < 5000)
        QTest::qWait(5);
    QVERIFY2(t.elapsed() < 200, qPrintable(QString::number(t.elapsed())));
    QVERIFY(m_asked.isEmpty()); // no offer to quit: the worker came back
    QVERIFY2(m_errors.isEmpty(), qPrintable(m_errors.join('\n')));
    const auto stored = m_core->history()->store()->messages(m_controller->currentConversation());
    QVERIFY(!stored.isEmpty());
    QCOMPARE(stored.first().content, QString("please spin"));
    QSignalSpy finished(m_controller, &ChatController::answerFinished);
    m_controller->newChat(); // this chat's history would spin again
    send(QStringLiteral("hello"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
}

void TestTemplateSpin::aTemplateThatNeverEndsSaysWhy()
{
    send(QStringLiteral("please spin"));
    QTRY_COMPARE_WITH_TIMEOUT(m_errors.size(), 1, 12000);
    QVERIFY2(m_errors[0].contains("chat template") && m_errors[0].contains("did not finish in 5 s"),
             qPrintable(m_errors[0]));
    QCOMPARE(m_core->model()->state(), LoadedModel::State::Ready);
    QSignalSpy finished(m_controller, &ChatController::answerFinished);
    m_controller->newChat(); // this chat's history would spin again
    send(QStringLiteral("hello"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
}

QTEST_MAIN(TestTemplateSpin)
#include "tst_templatespin.moc"
