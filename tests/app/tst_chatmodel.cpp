#include "chatmodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

class TestChatModel : public QObject
{
    Q_OBJECT
private slots:
    void appendAndStream();
    void historySkipsUnfinished();
};

void TestChatModel::appendAndStream()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    m.appendMessage({QStringLiteral("user"), QStringLiteral("hi"), {}, ChatModel::State::Done, false, {}});
    ChatModel::Message a;
    a.role = QStringLiteral("assistant");
    a.state = ChatModel::State::Streaming;
    const int row = m.appendMessage(a);
    QCOMPARE(row, 1);
    m.appendText(row, QStringLiteral("Hel"), {});
    m.appendText(row, QStringLiteral("lo"), QStringLiteral("r"));
    m.appendText(row, {}, {}); // nothing new: no signal
    QCOMPARE(changed.count(), 2);
    QCOMPARE(m.data(m.index(row), ChatModel::ContentRole).toString(), QString("Hello"));
    QCOMPARE(m.data(m.index(row), ChatModel::ReasoningRole).toString(), QString("r"));
    shoehorn::GenerationStats st;
    st.generatedTokens = 2;
    m.finish(row, ChatModel::State::Stopped, &st);
    QCOMPARE(m.data(m.index(row), ChatModel::StateRole).value<ChatModel::State>(), ChatModel::State::Stopped);
    QCOMPARE(m.data(m.index(row), ChatModel::StatsRole).value<shoehorn::GenerationStats>().generatedTokens, 2);
    m.clear();
    QCOMPARE(m.rowCount(), 0);
}

void TestChatModel::historySkipsUnfinished()
{
    ChatModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.appendMessage({QStringLiteral("user"), QStringLiteral("q1"), {}, ChatModel::State::Done, false, {}});
    m.appendMessage({QStringLiteral("assistant"), QStringLiteral("a1"), QStringLiteral("t"), ChatModel::State::Stopped,
                     false, {}});
    m.appendMessage({QStringLiteral("user"), QStringLiteral("q2"), {}, ChatModel::State::Done, false, {}});
    m.appendMessage({QStringLiteral("assistant"), QString(), {}, ChatModel::State::Streaming, false, {}});
    const auto h = m.history(QStringLiteral("sys"));
    QCOMPARE(h.size(), size_t(4));
    QCOMPARE(QString::fromStdString(h[0].role), QString("system"));
    QCOMPARE(QString::fromStdString(h[2].content), QString("a1")); // a stopped answer stays in the chat
    QCOMPARE(QString::fromStdString(h[2].reasoning), QString("t"));
    QCOMPARE(QString::fromStdString(h[3].content), QString("q2"));
}

QTEST_GUILESS_MAIN(TestChatModel)
#include "tst_chatmodel.moc"
