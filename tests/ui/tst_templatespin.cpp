// A chat template that passes the first-open check but spins when a message contains a word:
// the model loads, the answer hangs inside llama.cpp's template rendering where no flag is read,
// and Stop (the button or Esc) gets an offer to quit within its grace time instead of nothing;
// the chats are stored, and quitting does not wait for the stuck worker (shutdown() says false
// at its deadline). The worker thread never returns, so this executable ends with _Exit.
#include "chatcontroller.h"
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

#include <cstdlib>

class TestTemplateSpin : public QObject
{
    Q_OBJECT
private slots:
    void stopOffersToQuit();
};

void TestTemplateSpin::stopOffersToQuit()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QFile::remove(ChatStore::defaultPath());
    const QString model = TestFixtures::instance().withTemplate(QStringLiteral("spins-on-a-word.gguf"), "{% for m in messages %}{% if 'spin' in m.content %}{% for a in range(100000) %}"
                        "{% for b in range(100000) %}{% endfor %}{% endfor %}{% endif %}"
                        "<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                        "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}");

    auto *controller = new ChatController; // never deleted: its worker never comes back
    auto *window = new MainWindow(controller);
    QStringList asked;
    window->setQuitAsker([&](const QString &text) {
        asked << text;
        return false; // stay: the test goes on
    });
    window->setErrorPresenter([](const QString &, const QString &) {});
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QSignalSpy loaded(controller, &ChatController::modelLoaded);
    window->openModel(model);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000); // the check's sample chats do not spin

    window->messageInput()->setPlainText(QStringLiteral("please spin"));
    window->findChild<QPushButton *>(QStringLiteral("sendButton"))->click();
    QTRY_COMPARE(controller->state(), ChatController::State::Generating);
    QTest::qWait(300);
    QElapsedTimer t;
    t.start();
    QTest::keyClick(window, Qt::Key_Escape); // Stop
    QTRY_COMPARE_WITH_TIMEOUT(asked.size(), 1, 6000);
    QVERIFY2(t.elapsed() < 4500, qPrintable(QString::number(t.elapsed())));
    QVERIFY2(asked[0].contains("does not stop") && asked[0].contains("chat template"), qPrintable(asked[0]));
    QCOMPARE(controller->state(), ChatController::State::Generating); // really stuck
    // The question is stored; quitting gives up on the worker at its deadline.
    const auto stored = controller->store()->messages(controller->currentConversation());
    QVERIFY(!stored.isEmpty());
    QCOMPARE(stored.first().content, QString("please spin"));
    t.restart();
    QVERIFY(!controller->shutdown(300));
    QVERIFY(t.elapsed() < 1000);
}

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    TestTemplateSpin test;
    const int failed = QTest::qExec(&test, argc, argv);
    std::fflush(stdout);
    std::_Exit(failed ? 1 : 0); // the inference thread is still inside the template
}

#include "tst_templatespin.moc"
