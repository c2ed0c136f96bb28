// Error texts for logs and shoehorn-cli: never empty, whatever a failure left in `detail`.
#include "error.h"

#include <QtTest>

using namespace shoehorn;

class TestError : public QObject
{
    Q_OBJECT
private slots:
    void everyCodeHasASentence();
    void detailWins();
    void resultOfNothing();
    void fileErrorsAreTheFilesOwn();
};

void TestError::everyCodeHasASentence()
{
    for (int c = int(ErrorCode::None); c <= int(ErrorCode::Busy); ++c) { // the last code
        const auto code = ErrorCode(c);
        const QString sentence = QString::fromUtf8(errorCodeSentence(code));
        QVERIFY2(sentence.endsWith('.') && sentence.size() > 8, errorCodeName(code));
        QVERIFY(QString::fromUtf8(errorCodeName(code)) != QStringLiteral("unknown"));
        const std::string text = errorMessage(Error{code, {}});
        QVERIFY2(text.rfind(errorCodeSentence(code), 0) == 0, text.c_str());
    }
}

void TestError::detailWins()
{
    QCOMPARE(QString::fromStdString(errorMessage(Error{ErrorCode::DecodeFailed, "llama_decode returned -3"})),
             QStringLiteral("llama_decode returned -3"));
}

// Result<void>: success by default, a failure only with an Error that names one.
void TestError::resultOfNothing()
{
    const Result<void> done;
    QVERIFY(done.ok() && bool(done));
    const Result<void> failed = Error{ErrorCode::FileUnwritable, "disk full"};
    QVERIFY(!failed.ok() && !bool(failed));
    QCOMPARE(failed.error().code, ErrorCode::FileUnwritable);
    QCOMPARE(QString::fromStdString(failed.error().detail), QStringLiteral("disk full"));
    const Result<void> none = Error{};
    QVERIFY(none.ok()); // an Error of code None is no failure
}

// serve's exit 2 for a model that cannot be used reads this list (the window's "Cannot open this
// model" keeps its own switch: ui/ does not call the engine, layers_ui_calls_no_engine).
void TestError::fileErrorsAreTheFilesOwn()
{
    for (ErrorCode c : {ErrorCode::FileNotFound, ErrorCode::FileUnreadable, ErrorCode::NotGguf,
                        ErrorCode::UnsupportedVersion, ErrorCode::Truncated, ErrorCode::Corrupt, ErrorCode::SplitMissing})
        QVERIFY2(isFileError(c), errorCodeName(c));
    for (ErrorCode c : {ErrorCode::None, ErrorCode::OutOfMemory, ErrorCode::LoadFailed, ErrorCode::FileCheckFailed,
                        ErrorCode::AddressInUse, ErrorCode::FileUnwritable})
        QVERIFY2(!isFileError(c), errorCodeName(c));
}

QTEST_GUILESS_MAIN(TestError)
#include "tst_error.moc"
