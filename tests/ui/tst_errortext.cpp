// Error texts: every engine error code has a title and a sentence of its own that carries the
// detail, and every rung of the out-of-memory ladder says what failed and what comes next.
// The codes and rungs are enumerated from the engine's names, so a new one without text fails.
#include "errortext.h"

#include "conversationrepository.h"
#include "error.h"
#include "oomladder.h"

#include <QSet>
#include <QtTest>

using namespace shoehorn;

namespace {

// Every ErrorCode, from None until the engine no longer knows a name.
QList<int> allErrorCodes()
{
    QList<int> codes;
    for (int c = 0; c < 1000 && QByteArray(errorCodeName(ErrorCode(c))) != "unknown"; ++c)
        codes << c;
    return codes;
}

QList<int> allLadderSteps()
{
    QList<int> steps;
    for (int s = 0; s < 100 && *ladderStepName(LadderStep(s)); ++s)
        steps << s;
    return steps;
}

} // namespace

class TestErrorText : public QObject
{
    Q_OBJECT
private slots:
    void enumeration();
    void everyCode_data();
    void everyCode();
    void messagesAreDistinct();
    void retry_data();
    void retry();
    void history_data();
    void history();
    void historyWrites();
    void speculationOff_data();
    void speculationOff();
};

void TestErrorText::enumeration()
{
    // The enumeration reaches every code and rung known today (and stops).
    QVERIFY(allErrorCodes().size() >= int(ErrorCode::RemoteFailed) + 1);
    QVERIFY(allLadderSteps().size() >= int(LadderStep::QuantizedKv) + 1);
}

void TestErrorText::everyCode_data()
{
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("title");
    const QHash<int, QString> titles{
        {int(ErrorCode::Cancelled), "Cancelled"},
        {int(ErrorCode::OutOfMemory), "Not enough memory"},
        {int(ErrorCode::FileNotFound), "Cannot open this model"},
        {int(ErrorCode::FileUnreadable), "Cannot open this model"},
        {int(ErrorCode::NotGguf), "Cannot open this model"},
        {int(ErrorCode::UnsupportedVersion), "Cannot open this model"},
        {int(ErrorCode::Truncated), "Cannot open this model"},
        {int(ErrorCode::Corrupt), "Cannot open this model"},
        {int(ErrorCode::SplitMissing), "Cannot open this model"},
    };
    for (int code : allErrorCodes())
        QTest::addRow("%s", errorCodeName(ErrorCode(code))) << code << titles.value(code, "Something went wrong");
}

void TestErrorText::everyCode()
{
    QFETCH(int, code);
    QFETCH(QString, title);
    QCOMPARE(ErrorText::title(ErrorCode(code)), title);
    const QString plain = ErrorText::message({ErrorCode(code), {}});
    QVERIFY2(plain.trimmed().size() > 5, qPrintable(QString("no sentence for code %1").arg(code)));
    QVERIFY(!plain.contains("Details"));
    QVERIFY2(QStringLiteral(".?").contains(plain.back()), qPrintable(plain)); // whole sentences
    // The detail (llama.cpp's own words, any characters) follows the sentence verbatim.
    const QString detail = "ggml_backend_cuda_buffer_type_alloc_buffer: 5120.00 MiB %1 %2 — 显存不足 <b>&amp;";
    const QString full = ErrorText::message({ErrorCode(code), detail.toStdString()});
    QVERIFY2(full.startsWith(plain), qPrintable(full));
    QVERIFY2(full.endsWith(detail), qPrintable(full));
    QVERIFY(full.size() > plain.size() + detail.size());
}

void TestErrorText::messagesAreDistinct()
{
    QHash<QString, int> seen;
    for (int code : allErrorCodes()) {
        const QString text = ErrorText::message({ErrorCode(code), {}});
        QVERIFY2(!seen.contains(text), qPrintable(QString("codes %1 and %2 share \"%3\"")
                                                      .arg(errorCodeName(ErrorCode(seen.value(text))),
                                                           errorCodeName(ErrorCode(code)), text)));
        seen.insert(text, code);
    }
}

void TestErrorText::retry_data()
{
    QTest::addColumn<int>("step");
    QTest::addColumn<QString>("buffer");
    QTest::addColumn<quint64>("bytes");
    QTest::addColumn<QString>("failed");
    QTest::addColumn<QString>("next");
    const QHash<int, QString> next{
        {int(LadderStep::SpeculationOff), "Retrying without speculative decoding (its draft context needs memory of "
                                          "its own)."},
        {int(LadderStep::MoreExpertsOnCpu), "Retrying with the experts of 37 layers on the CPU."},
        {int(LadderStep::FewerGpuLayers), "Retrying with 21 layers on the GPU."},
        {int(LadderStep::SmallerContext), "Retrying with a context of 12288 tokens."},
        {int(LadderStep::QuantizedKv), "Retrying with a q8_0 KV cache."},
    };
    for (int step : allLadderSteps()) {
        const char *name = ladderStepName(LadderStep(step));
        QTest::addRow("%s, buffer known", name) << step << "CUDA0" << quint64(5 * GiB)
                                                << "Out of memory: the CUDA0 buffer needed 5.00 GiB."
                                                << next.value(step);
        QTest::addRow("%s, size unknown", name) << step << "CPU" << quint64(0) << "Out of memory while loading."
                                                << next.value(step);
        QTest::addRow("%s, buffer unknown", name) << step << "" << quint64(512 * MiB)
                                                  << "Out of memory while loading." << next.value(step);
    }
}

void TestErrorText::retry()
{
    QFETCH(int, step);
    QFETCH(QString, buffer);
    QFETCH(quint64, bytes);
    QFETCH(QString, failed);
    QFETCH(QString, next);
    QVERIFY2(!next.isEmpty(), "a ladder step this test has no expected text for");
    OomRetry r;
    r.failure = {buffer.toStdString(), bytes};
    r.step = LadderStep(step);
    r.before.load.gpuLayers = 48;
    r.before.load.cpuMoeLayers = 30;
    r.before.context.contextSize = 32768;
    r.after = r.before;
    r.after.load.cpuMoeLayers = 37;
    r.after.load.gpuLayers = 21;
    r.after.context.contextSize = 12288;
    r.after.context.typeK = r.after.context.typeV = "q8_0";
    QCOMPARE(ErrorText::retry(r), failed + ' ' + next);
}

// Each thing opening the chat history can find has its own sentence, naming the file, why, and
// where an unreadable one went; all is well: nothing to say.
void TestErrorText::history_data()
{
    using Kind = HistoryProblem::Kind;
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QStringList>("says");
    QTest::newRow("none") << int(Kind::None) << QString() << QStringList();
    QTest::newRow("newer") << int(Kind::ReadOnlyNewer) << "schema 99" << QStringList{"/h/chats.sqlite", "schema 99", "read-only"};
    QTest::newRow("cannot create") << int(Kind::CannotCreate) << "disk full"
                                   << QStringList{"/h/chats.sqlite", "disk full", "not saved"};
    QTest::newRow("cannot move aside") << int(Kind::CannotMoveAside) << "" << QStringList{"/h/chats.sqlite", "integrity check", "moved aside"};
    QTest::newRow("moved aside") << int(Kind::MovedAside) << "not a database"
                                 << QStringList{"/h/chats.sqlite", "not a database", "/h/chats.sqlite.unreadable-1", "new history"};
    QTest::newRow("moved, no new") << int(Kind::MovedAsideNoNew) << "not a database"
                                   << QStringList{"/h/chats.sqlite.unreadable-1", "read-only file system", "not saved"};
}

void TestErrorText::history()
{
    QFETCH(int, kind);
    QFETCH(QString, reason);
    QFETCH(QStringList, says);
    HistoryProblem p;
    p.kind = HistoryProblem::Kind(kind);
    p.path = "/h/chats.sqlite";
    p.reason = reason;
    p.movedTo = "/h/chats.sqlite.unreadable-1";
    p.newReason = "read-only file system";
    const QString text = ErrorText::history(p);
    QCOMPARE(text.isEmpty(), says.isEmpty());
    for (const QString &s : says)
        QVERIFY2(text.contains(s), qPrintable(text + " lacks " + s));
}

// Every kind of history write has its own words (enumerated from the Q_ENUM: a new kind without
// words fails).
void TestErrorText::historyWrites()
{
    const QMetaEnum kinds = QMetaEnum::fromType<ConversationRepository::Write>();
    QSet<QString> seen;
    for (int i = 0; i < kinds.keyCount(); ++i) {
        const QString text = ErrorText::historyWrite(ConversationRepository::Write(kinds.value(i)));
        QVERIFY2(!text.isEmpty(), kinds.key(i));
        QVERIFY2(!seen.contains(text), kinds.key(i));
        seen.insert(text);
    }
    QCOMPARE(seen.size(), 11);
}

// Why speculation is off, in the chat's words: every reason its own sentence, the file named, and
// a draft the safety check refused says so with the check's verdict (it read "cannot be read as a
// GGUF model" for a file that is one).
void TestErrorText::speculationOff_data()
{
    using Why = shoehorn::SpeculationOff::Why;
    QTest::addColumn<int>("why");
    QTest::addColumn<QString>("says");
    QTest::newRow("none") << int(Why::None) << "";
    QTest::newRow("no MTP layer") << int(Why::NoMtpLayer) << "this model file has no MTP layer";
    QTest::newRow("unreadable draft") << int(Why::DraftUnreadable) << "the draft model d.gguf cannot be read as a GGUF";
    QTest::newRow("other vocabulary") << int(Why::DraftVocabulary) << "d.gguf has another vocabulary";
    QTest::newRow("llama.cpp refused") << int(Why::Refused) << "llama.cpp did not start it (d.gguf)";
    QTest::newRow("failed the check") << int(Why::DraftFailedCheck)
                                      << "the draft model d.gguf failed the safety check before loading "
                                         "(llama.cpp stopped: GGML_ASSERT(n_embd_head == n_rot))";
}

void TestErrorText::speculationOff()
{
    QFETCH(int, why);
    QFETCH(QString, says);
    shoehorn::SpeculationOff off{shoehorn::SpeculationOff::Why(why), "d.gguf", "(English)",
                                 "llama.cpp stopped: GGML_ASSERT(n_embd_head == n_rot)"};
    const QString text = ErrorText::speculationOff(off);
    QVERIFY2(says.isEmpty() ? text.isEmpty() : text.contains(says), qPrintable(text));
}

QTEST_GUILESS_MAIN(TestErrorText)
#include "tst_errortext.moc"
