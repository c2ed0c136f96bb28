#include "chatmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using State = ChatModel::State;

class TestChatModel : public QObject
{
    Q_OBJECT
private slots:
    void appendAndStream();
    void lineEndsAreOneCharacter_data();
    void lineEndsAreOneCharacter();
    void historySkipsUnfinished();
    void historySharesPictures();
    void versions();
    void thinkingTime();
    void removeAndTruncate();
};

void TestChatModel::appendAndStream()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    m.appendMessage(ChatModel::make(ChatModel::Author::User, "hi"));
    const int row = m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QCOMPARE(row, 1);
    m.appendText(row, QStringLiteral("Hel"), {});
    m.appendText(row, QStringLiteral("lo"), QStringLiteral("r"));
    m.appendText(row, {}, {}); // nothing new: no signal
    QCOMPARE(changed.count(), 2);
    QCOMPARE(m.data(m.index(row), ChatModel::ContentRole).toString(), QString("Hello"));
    QCOMPARE(m.data(m.index(row), ChatModel::ReasoningRole).toString(), QString("r"));
    shoehorn::GenerationStats st;
    st.generatedTokens = 2;
    m.finish(row, State::Stopped, &st);
    QCOMPARE(m.data(m.index(row), ChatModel::StateRole).value<State>(), State::Stopped);
    QCOMPARE(m.data(m.index(row), ChatModel::StatsRole).value<shoehorn::GenerationStats>().generatedTokens, 2);
    m.clear();
    QCOMPARE(m.rowCount(), 0);
}

// "\r\n" is kept as "\n" however the batches cut it: text lengths are what views show, and a
// code block's colours are offsets into its text.
void TestChatModel::lineEndsAreOneCharacter_data()
{
    QTest::addColumn<QStringList>("batches");
    QTest::addColumn<QString>("kept");
    QTest::newRow("in one batch") << QStringList{"a\r\nb"} << "a\nb";
    QTest::newRow("cut between \\r and \\n") << QStringList{"a\r", "\nb"} << "a\nb";
    QTest::newRow("a lone \\r stays") << QStringList{"a\r", "b"} << "a\rb";
    QTest::newRow("\\r\\n\\r then \\n") << QStringList{"a\r\n\r", "\n"} << "a\n\n";
    QTest::newRow("converted twice") << QStringList{"a\r\r\nb"} << "a\nb";
    QTest::newRow("converted twice, cut") << QStringList{"a\r\r", "\nb"} << "a\nb";
}

void TestChatModel::lineEndsAreOneCharacter()
{
    QFETCH(QStringList, batches);
    QFETCH(QString, kept);
    ChatModel m;
    const int row = m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    for (const QString &b : batches)
        m.appendText(row, b, b); // the thinking as the answer
    QCOMPARE(m.message(row).content, kept);
    QCOMPARE(m.message(row).reasoning, kept);
}

void TestChatModel::historySkipsUnfinished()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.appendMessage(ChatModel::make(ChatModel::Author::User, "q1"));
    auto a1 = ChatModel::make(ChatModel::Author::Assistant, "a1", State::Stopped);
    a1.reasoning = QStringLiteral("t");
    m.appendMessage(a1);
    m.appendMessage(ChatModel::make(ChatModel::Author::User, "q2"));
    m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    const auto h = m.history(QStringLiteral("sys"));
    QCOMPARE(h.size(), 4);
    QCOMPARE(h[0].role, QString("system"));
    QCOMPARE(h[2].content, QString("a1")); // a stopped answer stays in the chat
    QCOMPARE(h[2].reasoning, QString("t"));
    QCOMPARE(h[3].content, QString("q2"));
    QCOMPARE(m.history({}, 2).size(), 2); // up to a row: what a regenerated answer sees
}

// A photo is megabytes: the history shares the chat's bytes (the send runs on the GUI thread),
// and the engine's copy is made from it (on the inference thread).
void TestChatModel::historySharesPictures()
{
    ChatModel m;
    auto q = ChatModel::make(ChatModel::Author::User, "what is this?");
    q.images = {{QByteArray(4 << 20, 'p'), QStringLiteral("image/png")}};
    m.appendMessage(q);
    const ChatHistory h = m.history({});
    QCOMPARE(h.size(), 1);
    QCOMPARE(h[0].images.size(), 1);
    // The same buffer (as pointers: QCOMPARE would compare two char pointers as C strings).
    QVERIFY(static_cast<const void *>(h[0].images[0].data.constData()) ==
            static_cast<const void *>(m.message(0).images[0].data.constData()));
    const auto engine = toEngineHistory(h);
    QCOMPARE(engine.size(), size_t(1));
    QCOMPARE(engine[0].role, std::string("user"));
    QCOMPARE(engine[0].content, std::string("what is this?"));
    QCOMPARE(engine[0].images.size(), size_t(1));
    QCOMPARE(engine[0].images[0].bytes, std::string(4 << 20, 'p'));
}

void TestChatModel::versions()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.appendMessage(ChatModel::make(ChatModel::Author::User, "q"));
    const int row = m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, "first"));
    QCOMPARE(m.data(m.index(row), ChatModel::VersionCountRole).toInt(), 1);
    m.beginNewVersion(row);
    QCOMPARE(m.message(row).content, QString());
    QCOMPARE(m.message(row).state, State::Streaming);
    m.appendText(row, QStringLiteral("second"), {});
    m.finish(row, State::Done, nullptr);
    m.beginNewVersion(row);
    m.appendText(row, QStringLiteral("third"), {});
    m.finish(row, State::Stopped, nullptr);
    QCOMPARE(m.data(m.index(row), ChatModel::VersionCountRole).toInt(), 3);
    QCOMPARE(m.data(m.index(row), ChatModel::VersionRole).toInt(), 2);
    m.setCurrentVersion(row, 0);
    QCOMPARE(m.message(row).content, QString("first"));
    QCOMPARE(m.message(row).state, State::Done);
    m.setCurrentVersion(row, 1);
    QCOMPARE(m.message(row).content, QString("second"));
    m.setCurrentVersion(row, 2);
    QCOMPARE(m.message(row).content, QString("third"));
    QCOMPARE(m.message(row).state, State::Stopped);
    m.setCurrentVersion(row, 7); // out of range: nothing changes
    QCOMPARE(m.message(row).content, QString("third"));
    // The version shown is what the next turn's history carries.
    m.setCurrentVersion(row, 1);
    QCOMPARE(m.history({}).back().content, QString("second"));
}

void TestChatModel::thinkingTime()
{
    ChatModel m;
    const int row = m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    m.appendText(row, {}, QStringLiteral("hmm"));
    QCOMPARE(m.message(row).reasoningMs, qint64(-1)); // still thinking
    QTest::qWait(30);
    m.appendText(row, QStringLiteral("answer"), {});
    QVERIFY2(m.message(row).reasoningMs >= 25, qPrintable(QString::number(m.message(row).reasoningMs)));
    m.finish(row, State::Done, nullptr);
    const int plain = m.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    m.appendText(plain, QStringLiteral("no thinking"), {});
    m.finish(plain, State::Done, nullptr);
    QCOMPARE(m.message(plain).reasoningMs, qint64(-1));
}

void TestChatModel::removeAndTruncate()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (const char *t : {"a", "b", "c", "d"})
        m.appendMessage(ChatModel::make(ChatModel::Author::User, QString::fromLatin1(t)));
    m.removeMessage(1);
    QCOMPARE(m.rowCount(), 3);
    QCOMPARE(m.message(1).content, QString("c"));
    m.truncate(1);
    QCOMPARE(m.rowCount(), 1);
    m.setContent(0, QStringLiteral("edited"));
    QCOMPARE(m.message(0).content, QString("edited"));
}

QTEST_GUILESS_MAIN(TestChatModel)
#include "tst_chatmodel.moc"
