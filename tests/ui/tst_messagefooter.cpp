// The status line under a message (MessageFooter::status): how it ended and its statistics,
// speculative decoding's drafted and accepted tokens among them.
#include "errortext.h"
#include "messagefooter.h"
#include "translations.h"

#include <QtTest>

using namespace shoehorn;

class TestMessageFooter : public QObject
{
    Q_OBJECT
private slots:
    // English as the app shows it: its plural forms ("%n token(s)") come from shoehorn_en.
    void initTestCase()
    {
        qputenv("SHOEHORN_LANG", "en");
        QCOMPARE(installTranslations(*qApp), QString("en_US"));
    }
    void status_data();
    void status();
    void failedSaysWhy_data();
    void failedSaysWhy();
};

void TestMessageFooter::status_data()
{
    QTest::addColumn<int>("author");
    QTest::addColumn<int>("state");
    QTest::addColumn<bool>("hasStats");
    QTest::addColumn<int>("stopReason");
    QTest::addColumn<int>("drafted");
    QTest::addColumn<int>("accepted");
    QTest::addColumn<int>("trimmed");
    QTest::addColumn<QString>("says");
    QTest::addColumn<int>("generated");
    const int assistant = int(ChatModel::Author::Assistant), user = int(ChatModel::Author::User);
    const int done = int(ChatModel::State::Done), stopped = int(ChatModel::State::Stopped);
    const int eog = int(StopReason::EndOfGeneration), cancelled = int(StopReason::Cancelled);
    const QString stats = "96 tokens · 41.5 tok/s · first token 230 ms";
    QTest::newRow("a question") << user << done << false << 0 << 0 << 0 << 0 << "" << 96;
    QTest::newRow("an answer") << assistant << done << true << eog << 0 << 0 << 0 << stats + " · finished" << 96;
    QTest::newRow("token limit") << assistant << done << true << int(StopReason::MaxTokens) << 0 << 0 << 0
                                 << stats + " · token limit reached" << 96;
    QTest::newRow("stopped") << assistant << stopped << true << cancelled << 0 << 0 << 0 << "Stopped · " + stats << 96;
    QTest::newRow("speculative") << assistant << done << true << eog << 96 << 14 << 0
                                 << stats + " · finished · speculative: 14 of 96 drafted tokens accepted (15 %)" << 96;
    QTest::newRow("speculative, none accepted") << assistant << done << true << eog << 30 << 0 << 0
                                                << stats + " · finished · speculative: 0 of 30 drafted tokens accepted (0 %)" << 96;
    QTest::newRow("nothing drafted: no speculation line") << assistant << done << true << eog << 0 << 0 << 2
                                                          << stats + " · finished · 2 older messages left out to fit the context" << 96;
    // Nothing generated: no speed and no "first token 0 ms".
    QTest::newRow("stopped before the first token") << assistant << stopped << true << cancelled << 0 << 0 << 0
                                                    << "Stopped before the answer began" << 0;
    QTest::newRow("ended at once") << assistant << done << true << eog << 0 << 0 << 0 << "0 tokens · finished" << 0;
}

void TestMessageFooter::status()
{
    QFETCH(int, author);
    QFETCH(int, state);
    QFETCH(bool, hasStats);
    QFETCH(int, stopReason);
    QFETCH(int, drafted);
    QFETCH(int, accepted);
    QFETCH(int, trimmed);
    QFETCH(QString, says);
    QFETCH(int, generated);
    ChatModel::Message m = ChatModel::make(ChatModel::Author(author), "text", ChatModel::State(state));
    m.hasStats = hasStats;
    m.stats.generatedTokens = generated;
    m.stats.generationTokensPerSecond = 41.5;
    m.stats.timeToFirstTokenMs = 230;
    m.stats.stopReason = StopReason(stopReason);
    m.stats.draftTokens = drafted;
    m.stats.draftAccepted = accepted;
    m.stats.trimmedMessages = trimmed;
    QCOMPARE(MessageFooter::status(m).join(" · "), says);
}

void TestMessageFooter::failedSaysWhy_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("says");
    QTest::newRow("reason unknown (a stored chat)") << int(ErrorCode::None) << "Failed";
    QTest::newRow("no projector") << int(ErrorCode::NoProjector)
                                  << "Failed: This model cannot see images: no vision projector (mmproj) is paired with it.";
    QTest::newRow("out of memory") << int(ErrorCode::OutOfMemory) << "Failed: " + ErrorText::message({ErrorCode::OutOfMemory, {}})
                                                                               .section('\n', 0, 0);
}

// A failed answer says why while this session knows it: once the message box was closed the
// chat said only "Failed" (found using the window). The sentence, not the engine's details.
void TestMessageFooter::failedSaysWhy()
{
    QFETCH(int, code);
    QFETCH(QString, says);
    ChatModel::Message m = ChatModel::make(ChatModel::Author::Assistant, "partial", ChatModel::State::Failed);
    m.error = {ErrorCode(code), "a message has 1 image(s), and no vision projector is loaded"};
    QCOMPARE(MessageFooter::status(m).join(" · "), says);
}

QTEST_MAIN(TestMessageFooter)
#include "tst_messagefooter.moc"
