// UTF-8 assembly, stop strings and the reasoning split, fed in every possible chunking.
#include "textstream.h"

#include <QtTest>

using namespace shoehorn;

namespace {
bool validUtf8(const std::string &s)
{
    const QByteArray b = QByteArray::fromStdString(s);
    return QString::fromUtf8(b).toUtf8() == b;
}
} // namespace

class TestTextStream : public QObject
{
    Q_OBJECT
private slots:
    void utf8EveryChunking_data();
    void utf8EveryChunking();
    void utf8Invalid_data();
    void utf8Invalid();
    void stopStrings_data();
    void stopStrings();
    void reasoning_data();
    void reasoning();
};

void TestTextStream::utf8EveryChunking_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("ascii") << QByteArray("hello world");
    QTest::newRow("chinese") << QString::fromUtf8("你好，世界。模型在显存里").toUtf8();
    QTest::newRow("emoji") << QString::fromUtf8("go 🚀 now 😀!").toUtf8();
    QTest::newRow("mixed") << QString::fromUtf8("é ü — ✓ 中 🚀").toUtf8();
}

void TestTextStream::utf8EveryChunking()
{
    // Split the byte string at every pair of cut points; each delta must be valid UTF-8 and
    // the concatenation must equal the input.
    QFETCH(QByteArray, text);
    const std::string s = text.toStdString();
    for (size_t a = 0; a <= s.size(); ++a) {
        for (size_t b = a; b <= s.size(); ++b) {
            Utf8Assembler u;
            std::string out;
            for (const auto &part : {s.substr(0, a), s.substr(a, b - a), s.substr(b)}) {
                const std::string d = u.push(part);
                QVERIFY(validUtf8(d));
                out += d;
            }
            out += u.flush();
            QCOMPARE(QByteArray::fromStdString(out), text);
        }
    }
}

void TestTextStream::utf8Invalid_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QByteArray>("expected");
    const QByteArray r("\xEF\xBF\xBD");
    QTest::newRow("lone continuation") << QByteArray("a\x80" "b") << QByteArray("a" + r + "b");
    QTest::newRow("bad lead") << QByteArray("\xFF" "x") << QByteArray(r + "x");
    QTest::newRow("interrupted") << QByteArray("\xE4\xBD" "a") << QByteArray(r + "a");
    QTest::newRow("overlong") << QByteArray("\xC0\xAF") << QByteArray(r + r);
    QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << QByteArray(r + r + r);
    QTest::newRow("cut at end") << QByteArray("ok\xF0\x9F") << QByteArray("ok" + r);
}

void TestTextStream::utf8Invalid()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QByteArray, expected);
    Utf8Assembler u;
    std::string out;
    for (char c : bytes) {
        const std::string d = u.push(std::string(1, c));
        QVERIFY(validUtf8(d));
        out += d;
    }
    out += u.flush();
    QCOMPARE(QByteArray::fromStdString(out), expected);
}

void TestTextStream::stopStrings_data()
{
    QTest::addColumn<QStringList>("stops");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("output");
    QTest::addColumn<bool>("stopped");
    QTest::newRow("none") << QStringList{} << "abc def" << "abc def" << false;
    QTest::newRow("simple") << QStringList{"STOP"} << "hello STOP world" << "hello " << true;
    QTest::newRow("false start") << QStringList{"STOP"} << "a STO b ST" << "a STO b ST" << false;
    QTest::newRow("first of two") << QStringList{"xyz", "b c"} << "a b c xyz" << "a " << true;
    QTest::newRow("chinese") << QStringList{"。"} << "你好。再见" << "你好" << true;
}

void TestTextStream::stopStrings()
{
    QFETCH(QStringList, stops);
    QFETCH(QString, input);
    QFETCH(QString, output);
    QFETCH(bool, stopped);
    std::vector<std::string> s;
    for (const auto &x : stops)
        s.push_back(x.toStdString());
    const std::string in = input.toStdString();
    // Feed one byte at a time, the worst case for a stop string spanning tokens.
    StopStringFilter f(s);
    std::string out;
    for (char c : in)
        out += f.push(std::string(1, c));
    out += f.flush();
    QCOMPARE(QString::fromStdString(out), output);
    QCOMPARE(f.stopped(), stopped);
}

void TestTextStream::reasoning_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("startInReasoning");
    QTest::addColumn<QString>("reasoning");
    QTest::addColumn<QString>("content");
    QTest::newRow("tagged") << "<think>plan it</think>\n\nThe answer." << false << "plan it" << "The answer.";
    QTest::newRow("prefilled") << "plan it</think>\n\nThe answer." << true << "plan it" << "The answer.";
    QTest::newRow("no reasoning") << "Just an answer" << false << "" << "Just an answer";
    QTest::newRow("leading space") << "\n<think>x</think>y" << false << "x" << "y";
    QTest::newRow("unterminated") << "<think>still thinking" << false << "still thinking" << "";
    QTest::newRow("almost tag") << "<thin ice" << false << "" << "<thin ice";
}

void TestTextStream::reasoning()
{
    QFETCH(QString, input);
    QFETCH(bool, startInReasoning);
    QFETCH(QString, reasoning);
    QFETCH(QString, content);
    const std::string in = input.toStdString();
    for (size_t chunk : {size_t(1), size_t(2), size_t(3), size_t(7), in.size()}) {
        ReasoningSplitter sp("<think>", {"</think>"}, startInReasoning);
        std::string r, c;
        for (size_t i = 0; i < in.size(); i += chunk) {
            const auto o = sp.push(in.substr(i, chunk));
            r += o.reasoning;
            c += o.content;
        }
        const auto o = sp.flush();
        r += o.reasoning;
        c += o.content;
        QCOMPARE(QString::fromStdString(r), reasoning);
        QCOMPARE(QString::fromStdString(c), content);
    }
}

QTEST_GUILESS_MAIN(TestTextStream)
#include "tst_textstream.moc"
