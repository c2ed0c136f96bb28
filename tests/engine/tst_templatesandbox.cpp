// A chat template that passes the first-open check (its sample conversations) and spins or eats
// memory on the user's real message: with the template rendered in the helper process
// (ChatSession::isolateTemplate), that turn fails with the check's words, Stop ends it at once,
// and the next turn answers. The helper renders exactly what this process would.
#include "chatsession.h"
#include "sanitized.h"
#include "testfixtures.h"
#include "testsessions.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

using namespace shoehorn;

namespace {

using testsessions::load;
using testsessions::session;

// ChatML, except that a message with "spin" in it turns a loop of 10^10 and one with "eat" in it
// asks for a list of two billion numbers.
const std::string kTrap = "{% for m in messages %}"
                          "{% if 'spin' in m.content %}{% for a in range(100000) %}{% for b in range(100000) %}"
                          "{% endfor %}{% endfor %}{% endif %}"
                          "{% if 'eat' in m.content %}{{ range(2000000000) | list | length }}{% endif %}"
                          "<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
                          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

FileCheckLimits quick()
{
    FileCheckLimits l;
    l.seconds = 2;
    l.memoryBytes = 256ull << 20;
    return l;
}

GenerationOptions shortAnswer()
{
    GenerationOptions o;
    o.maxTokens = 8;
    o.sampling.seed = 3;
    return o;
}

} // namespace

class TestTemplateSandbox : public QObject
{
    Q_OBJECT
private slots:
    void runawayTurnFailsAndTheNextAnswers_data();
    void runawayTurnFailsAndTheNextAnswers();
    void stopEndsTheRenderAtOnce();
    void sameTextAsInProcess();
    void cliChatSaysWhatHappened();
};

void TestTemplateSandbox::runawayTurnFailsAndTheNextAnswers_data()
{
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("says");
    QTest::newRow("spins") << "please spin" << "rendering the chat template did not finish in 2 s";
    QTest::newRow("eats memory") << "eat this" << "rendering the chat template needed more than 256.0 MiB of memory";
}

void TestTemplateSandbox::runawayTurnFailsAndTheNextAnswers()
{
    QFETCH(QString, message);
    QFETCH(QString, says);
    if (says.contains("needed more than"))
        SKIP_IF_HEAP_LIMIT_IS_OFF();
    auto model = load(TestFixtures::instance().withTemplate("trap.gguf", kTrap));
    auto s = session(model);
    s->isolateTemplate(SHOEHORN_CLI, quick());
    auto first = s->generate({{"user", "Hello", {}}}, shortAnswer());
    QVERIFY2(first.ok(), first.ok() ? "" : first.error().detail.c_str());
    QVERIFY(first->stats.generatedTokens > 0);
    QElapsedTimer t;
    t.start();
    auto trapped = s->generate({{"user", message.toStdString(), {}}}, shortAnswer());
    QVERIFY(!trapped.ok());
    QCOMPARE(trapped.error().code, ErrorCode::TemplateFailed);
    QVERIFY2(QString::fromStdString(trapped.error().detail).contains(says), trapped.error().detail.c_str());
    QVERIFY2(t.elapsed() < 2000 + 2000, qPrintable(QString::number(t.elapsed()))); // the limit, then the kill
    // The helper is started again: the chat goes on.
    auto after = s->generate({{"user", "Hello", {}}}, shortAnswer());
    QVERIFY2(after.ok(), after.ok() ? "" : after.error().detail.c_str());
    QCOMPARE(QString::fromStdString(after->content), QString::fromStdString(first->content));
}

void TestTemplateSandbox::stopEndsTheRenderAtOnce()
{
    auto model = load(TestFixtures::instance().withTemplate("trap.gguf", kTrap));
    auto s = session(model);
    s->isolateTemplate(SHOEHORN_CLI, quick());
    QVERIFY(s->generate({{"user", "Hello", {}}}, shortAnswer()).ok()); // the helper is up
    std::atomic<bool> cancel{false};
    QElapsedTimer t;
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        t.start();
        cancel = true;
    });
    auto r = s->generate({{"user", "please spin", {}}}, shortAnswer(), {}, &cancel);
    const qint64 afterStop = t.elapsed();
    stopper.join();
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
    QCOMPARE(r->stats.stopReason, StopReason::Cancelled);
    QCOMPARE(r->stats.generatedTokens, 0);
    QVERIFY2(afterStop < 200, qPrintable(QString::number(afterStop)));
    QVERIFY(s->generate({{"user", "Hello", {}}}, shortAnswer()).ok());
}

// Thinking, several turns, a system prompt, and bytes that are not UTF-8 (a model's broken
// reply): the helper's prompt is byte for byte the one this process renders.
void TestTemplateSandbox::sameTextAsInProcess()
{
    auto model = load(TestFixtures::instance().tinyThinking());
    auto inProcess = session(model);
    auto isolated = session(model);
    isolated->isolateTemplate(SHOEHORN_CLI, quick());
    const std::vector<ChatMessage> h{{"system", "Be brief.", {}},
                                     {"user", "Hi \xff\xfe there", {}},
                                     {"assistant", "Hello \xc3 again", "They said hi."},
                                     {"user", "你好 🚀", {}}};
    for (bool thinking : {true, false}) {
        GenerationOptions o;
        o.enableThinking = thinking;
        auto a = inProcess->formatPrompt(h, o);
        auto b = isolated->formatPrompt(h, o);
        QVERIFY(a.ok() && b.ok());
        QCOMPARE(QByteArray::fromStdString(*b), QByteArray::fromStdString(*a));
        QVERIFY(b->find("\xff\xfe") != std::string::npos);
    }
}

void TestTemplateSandbox::cliChatSaysWhatHappened()
{
    const QString model = TestFixtures::instance().withTemplate("trap.gguf", kTrap);
    QTemporaryDir cache;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cache.path());
    p.setProcessEnvironment(env);
    QElapsedTimer t;
    t.start();
    p.start(QStringLiteral(SHOEHORN_CLI), {"chat", model, "-p", "please spin", "-n", "4"});
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("rendering the chat template did not finish in 5 s"), qPrintable(err.right(500)));
    QVERIFY2(t.elapsed() < 15000, qPrintable(QString::number(t.elapsed())));
}

QTEST_GUILESS_MAIN(TestTemplateSandbox)
#include "tst_templatesandbox.moc"
