// The Chats list: newest first, and a search that reads every message's text on the work pool,
// showing what it showed until the answer comes, an answer for an older text dropped.
#include "chatstore.h"
#include "conversationlist.h"
#include "testsettings.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

class TestConversationList : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    ChatStore m_store;
    qint64 add(const QString &title, const QString &text);
    QStringList titles(const ConversationList &list) const;

private slots:
    void initTestCase();
    void newestFirst();
    void searchRunsOffTheGuiThread();
    void searchTakesTheTextAsTyped_data();
    void searchTakesTheTextAsTyped();
};

qint64 TestConversationList::add(const QString &title, const QString &text)
{
    const auto id = m_store.createConversation(title, "/m.gguf", "");
    if (!id || !m_store.appendMessage(*id, ChatStore::message(*id, "user", text, "done")))
        return 0;
    return *id;
}

QStringList TestConversationList::titles(const ConversationList &list) const
{
    QStringList out;
    for (int r = 0; r < list.rowCount(); ++r)
        out << list.data(list.index(r)).toString();
    return out;
}

void TestConversationList::initTestCase()
{
    isolateSettings();
    QVERIFY(m_store.open(m_dir.filePath("history.sqlite")));
    QVERIFY(add("GPU planning", "how many experts fit in 6 GB?"));
    QVERIFY(add("Soup", "a recipe for 500 g of lentils"));
    QVERIFY(add("Discounts", "is 50% off a good deal?"));
    QVERIFY(add("Code", "rename snake_case to camelCase"));
    QVERIFY(add("Windows", "the file is in C:\\models\\qwen"));
}

void TestConversationList::newestFirst()
{
    ConversationList list(&m_store);
    QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(titles(list), QStringList({"Windows", "Code", "Discounts", "Soup", "GPU planning"}));
}

void TestConversationList::searchRunsOffTheGuiThread()
{
    ConversationList list(&m_store);
    QAbstractItemModelTester tester(&list, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy searched(&list, &ConversationList::searched);
    list.setSearch("experts");
    QCOMPARE(list.rowCount(), 5); // what it showed, until the answer comes (from the event loop)
    QVERIFY(searched.wait(10000));
    QCOMPARE(titles(list), QStringList({"GPU planning"}));
    // Typed on before the answer came: only the last text's answer is shown.
    searched.clear();
    list.setSearch("s");
    list.setSearch("so");
    list.setSearch("soup");
    QVERIFY(searched.wait(10000));
    QTest::qWait(100);
    QCOMPARE(searched.count(), 1);
    QCOMPARE(titles(list), QStringList({"Soup"}));
    // Cleared: the whole list at once, and a late answer does not replace it.
    list.setSearch("deal");
    list.setSearch("");
    QCOMPARE(list.rowCount(), 5);
    QTRY_VERIFY(!list.searching());
    QTest::qWait(50);
    QCOMPARE(list.rowCount(), 5);
}

void TestConversationList::searchTakesTheTextAsTyped_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("found");
    QTest::newRow("a percent sign") << "50%" << QStringList{"Discounts"}; // not "500 g"
    QTest::newRow("an underscore") << "e_c" << QStringList{"Code"};
    QTest::newRow("an underscore is not any letter") << "e_f" << QStringList{}; // "recipe for"
    QTest::newRow("a backslash") << "models\\qwen" << QStringList{"Windows"};
    QTest::newRow("a title") << "soup" << QStringList{"Soup"};
}

void TestConversationList::searchTakesTheTextAsTyped()
{
    QFETCH(QString, text);
    QFETCH(QStringList, found);
    ConversationList list(&m_store);
    QSignalSpy searched(&list, &ConversationList::searched);
    list.setSearch(text);
    QVERIFY(searched.wait(10000));
    QCOMPARE(titles(list), found);
}

QTEST_GUILESS_MAIN(TestConversationList)
#include "tst_conversationlist.moc"
