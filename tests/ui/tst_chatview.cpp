// The chat view, checked on its document: Markdown, code blocks, thinking, streaming, links.
#include "chatmodel.h"
#include "chatview.h"
#include "chatviewtesting.h"
#include "codehighlighter.h"
#include "markdownsplit.h"
#include "messagewriter.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFrame>
#include <QTextTable>
#include <QtTest>

using State = ChatModel::State;

using namespace ChatViewTesting;

namespace {
const char *const kAnswer = "# Plan\n\n"
                            "Some **bold** text with `inline code` and a [link](https://example.org).\n\n"
                            "- one\n- two\n\n"
                            "| GPU | tok/s |\n|---|---|\n| 3060 | 45 |\n\n"
                            "```python\ndef f(x):\n    return \"x\" * 2\n```\n\n"
                            "Done.";

bool hasTable(QTextFrame *frame)
{
    for (QTextFrame *child : frame->childFrames())
        if (qobject_cast<QTextTable *>(child) || hasTable(child))
            return true;
    return false;
}
} // namespace

class TestChatView : public QObject
{
    Q_OBJECT
private slots:
    void splitter_data();
    void splitter();
    void splitterStreamsLikeWhole();
    void markdownRendered();
    void codeBlockHighlighted();
    void streamingAppendsOnlyNewText();
    void thinkingCollapsedWithTime();
    void linksBecomeActions();
    void versionArrowsKeepTheirPlace();
    void parseHighlighterHtml();
    void followsPaletteChange();
    void streamedLineEndsAndCodeLines();
    void noteUntilTheFirstText();
    void pictureStillBeingRead();
};

void TestChatView::noteUntilTheFirstText()
{
    // While the prompt is read the answer being written says so; its first text replaces it.
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "q"));
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    model.setNote(row, "Reading the prompt: 10%");
    QVERIFY(written(view));
    QVERIFY(view.document()->toPlainText().contains("Reading the prompt: 10%"));
    model.setNote(row, "Reading the prompt: 55% (3 s left)");
    QString text = view.document()->toPlainText();
    QVERIFY2(text.contains("Reading the prompt: 55% (3 s left)") && !text.contains("10%"), qPrintable(text));
    model.appendText(row, QStringLiteral("Hello"), {});
    text = view.document()->toPlainText();
    QVERIFY2(text.contains("Hello") && !text.contains("Reading the prompt"), qPrintable(text));
    model.appendText(row, QStringLiteral(" world"), {});
    model.finish(row, State::Done, nullptr);
    text = view.document()->toPlainText();
    QVERIFY2(text.contains("Hello world") && !text.contains("Reading"), qPrintable(text));
    QVERIFY(model.message(row).note.isEmpty());
}

void TestChatView::streamedLineEndsAndCodeLines()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QVERIFY(written(view));
    // Windows line ends in a stream: nothing written earlier is lost.
    model.appendText(row, QStringLiteral("Para one.\r\n\r\nHello"), {});
    model.appendText(row, QStringLiteral("\r\nWorld"), {});
    // Code arriving with its fence in one batch keeps its lines apart while streaming.
    model.appendText(row, QStringLiteral("\r\n\r\n```cpp\nint a;\n"), {});
    model.appendText(row, QStringLiteral("int b;\n"), {});
    QVERIFY2(view.document()->toPlainText().contains("int a;\nint b;"), qPrintable(view.document()->toPlainText()));
    model.appendText(row, QStringLiteral("```\n"), {});
    model.finish(row, State::Done, nullptr);
    const QString text = view.document()->toPlainText();
    QVERIFY2(text.contains("Para one."), qPrintable(text));
    QVERIFY(text.contains("Hello") && text.contains("World")); // one paragraph: a soft break
    QCOMPARE(view.codeBlockText(0), QString("int a;\nint b;"));
}

void TestChatView::followsPaletteChange()
{
    // Light and dark follow the system palette: a palette change restyles the chat.
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "q"));
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, "```\ncode\n```"));
    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(30, 30, 30));
    dark.setColor(QPalette::Text, QColor(230, 230, 230));
    dark.setColor(QPalette::AlternateBase, QColor(45, 45, 48));
    view.setPalette(dark);
    QVERIFY(written(view));
    QTextFrame *code = view.codeBlockFrame(view.codeBlockCount() - 1);
    QVERIFY(code);
    QCOMPARE(code->frameFormat().background().color(), QColor(45, 45, 48));
    QTextCursor c(view.document());
    c.setPosition(code->firstPosition() + 1);
    QCOMPARE(c.charFormat().foreground().color(), QColor(230, 230, 230));
    QCOMPARE(view.document()->toPlainText().count("code"), 1); // laid out again, not twice
}

void TestChatView::splitter_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("final");
    QTest::addColumn<QStringList>("kinds"); // "md" or "code:<lang>"
    QTest::addColumn<int>("openTail");      // characters not in a block
    QTest::newRow("one open paragraph") << "Hello wor" << false << QStringList{} << 9;
    QTest::newRow("paragraph done at blank line + text") << "A\n\nB" << false << QStringList{"md"} << 1;
    QTest::newRow("blank line alone keeps it open") << "A\n\n" << false << QStringList{} << 3;
    QTest::newRow("indented continuation stays open") << "- a\n\n  more\n" << false << QStringList{} << 12;
    QTest::newRow("fence closes") << "x\n```cpp\nint a;\n```\n" << false << QStringList{"md", "code:cpp"} << 0;
    QTest::newRow("open fence") << "```py\nprint(1)\n" << false << QStringList{} << 15;
    QTest::newRow("final flushes open fence") << "```py\nprint(1)" << true << QStringList{"code:py"} << 0;
    QTest::newRow("tilde fence, backticks inside") << "~~~\n```\n~~~\n" << false << QStringList{"code:"} << 0;
    QTest::newRow("final flushes markdown") << "# T\nbody" << true << QStringList{"md"} << 0;
    QTest::newRow("loose numbered list stays one block") << "1. a\n\n2. b\n\n3. c\n\nEnd" << false
                                                         << QStringList{"md"} << 3;
    QTest::newRow("a digit alone waits") << "Para\n\n1" << false << QStringList{} << 7;
}

void TestChatView::splitter()
{
    QFETCH(QString, text);
    QFETCH(bool, final);
    QFETCH(QStringList, kinds);
    QFETCH(int, openTail);
    MarkdownSplit s;
    QStringList got;
    for (const auto &seg : s.feed(text, final))
        got << (seg.kind == MarkdownSplit::Segment::Code ? QStringLiteral("code:") + seg.language : QStringLiteral("md"));
    QCOMPARE(got, kinds);
    QCOMPARE(int(text.size() - s.boundary()), openTail);
}

void TestChatView::splitterStreamsLikeWhole()
{
    // Fed one character at a time, the blocks are the same as for the whole text at once.
    const QString text = QString::fromUtf8(kAnswer);
    MarkdownSplit whole;
    const auto expected = whole.feed(text, true);
    MarkdownSplit streamed;
    QList<MarkdownSplit::Segment> got;
    for (int i = 1; i <= text.size(); ++i)
        got += streamed.feed(text.left(i), false);
    got += streamed.feed(text, true);
    QCOMPARE(got.size(), expected.size());
    for (int i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].kind, expected[i].kind);
        QCOMPARE(got[i].text, expected[i].text);
    }
    QCOMPARE(expected.size(), 6); // heading, paragraph, list, table, code, last paragraph
}

void TestChatView::markdownRendered()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "plan it"));
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, QString::fromUtf8(kAnswer)));
    QVERIFY(written(view));
    QTextDocument *doc = view.document();
    const QString plain = doc->toPlainText();
    QVERIFY(plain.contains("Plan"));
    QVERIFY(!plain.contains("# Plan"));     // heading markup is gone
    QVERIFY(!plain.contains("**bold**"));
    QVERIFY(plain.contains("def f(x):"));
    QVERIFY(!plain.contains("```"));
    bool heading = false, bold = false, inlineCode = false, link = false;
    for (const auto &[text, f] : fragments(doc)) {
        heading |= text == "Plan" && f.property(QTextFormat::FontSizeAdjustment).toInt() > 0;
        bold |= text == "bold" && f.fontWeight() >= QFont::Bold;
        inlineCode |= text == "inline code" && f.fontFixedPitch();
        link |= text == "link" && f.isAnchor() && f.anchorHref() == "https://example.org";
    }
    QVERIFY(heading);
    QVERIFY(bold);
    QVERIFY(inlineCode);
    QVERIFY(link);
    bool list = false;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        list |= b.textList() && b.text() == "two";
    QVERIFY(list);
    QVERIFY(hasTable(doc->rootFrame()));
    QCOMPARE(view.codeBlockCount(), 1);
    QCOMPARE(view.codeBlockText(0), QString("def f(x):\n    return \"x\" * 2"));
    QCOMPARE(doc->toPlainText().count("Regenerate"), 1); // only the last answer offers it
}

void TestChatView::codeBlockHighlighted()
{
    if (!CodeHighlighter::available())
        QSKIP("kate-syntax-highlighter is not installed");
    ChatModel model;
    ChatView view;
    QVERIFY(showHighlighted(model, view, QString::fromUtf8(kAnswer)));
    QVERIFY(view.codeBlockHighlighted(0));
    // The keyword has a colour of its own; the text is unchanged.
    QTextFrame *frame = view.codeBlockFrame(0);
    QVERIFY(frame);
    QSet<QRgb> colours;
    QString text;
    for (auto it = frame->begin(); !it.atEnd(); ++it) {
        const QTextBlock b = it.currentBlock();
        if (!text.isEmpty())
            text += '\n';
        text += b.text();
        for (auto f = b.begin(); !f.atEnd(); ++f) {
            colours.insert(f.fragment().charFormat().foreground().color().rgb());
            QVERIFY(f.fragment().charFormat().fontFixedPitch() ||
                    QFontInfo(f.fragment().charFormat().font()).fixedPitch());
        }
    }
    QCOMPARE(text, view.codeBlockText(0));
    QVERIFY2(colours.size() >= 3, qPrintable(QString::number(colours.size())));
    // Copy puts the code, not the markup, on the clipboard.
    QSignalSpy copied(&view, &ChatView::copied); // said in the status bar: nothing else shows it
    view.activate("copy:0");
    QCOMPARE(QGuiApplication::clipboard()->text(), view.codeBlockText(0));
    QCOMPARE(copied.count(), 1);
    QCOMPARE(copied.at(0).at(0).toString(), QString("The code block is on the clipboard."));
}

void TestChatView::streamingAppendsOnlyNewText()
{
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ChatView view;
    view.setChatModel(&model);
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QVERIFY(written(view));
    QTextDocument *doc = view.document();
    int removed = 0;
    int bigInserts = 0;
    connect(doc, &QTextDocument::contentsChange, this, [&](int, int charsRemoved, int charsAdded) {
        removed += charsRemoved;
        if (charsAdded > 200)
            ++bigInserts;
    });
    const QString text = QString::fromUtf8(kAnswer).repeated(20);
    for (int i = 0; i < text.size(); i += 7)
        model.appendText(row, text.mid(i, 7), {});
    model.finish(row, State::Done, nullptr);
    // Removals only replace open tails, once per block when it is laid out: linear in the
    // answer. Re-rendering the answer per update would remove about 500,000 characters here.
    QVERIFY2(removed < 2 * text.size(), qPrintable(QString("%1 of %2").arg(removed).arg(text.size())));
    QCOMPARE(bigInserts, 0);
    QCOMPARE(view.codeBlockCount(), 20);
    QVERIFY(!doc->toPlainText().contains("```"));
    // The streamed result reads the same as the whole answer laid out at once.
    ChatModel whole;
    ChatView wholeView;
    wholeView.setChatModel(&whole);
    whole.appendMessage(ChatModel::make(ChatModel::Author::Assistant, text));
    QVERIFY(written(wholeView));
    QCOMPARE(doc->toPlainText(), wholeView.document()->toPlainText());
}

void TestChatView::thinkingCollapsedWithTime()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QVERIFY(written(view));
    model.appendText(row, {}, QStringLiteral("Let me count the experts.\n"));
    QVERIFY(view.document()->toPlainText().contains("Thinking…"));
    QVERIFY(!view.document()->toPlainText().contains("count the experts")); // collapsed by default
    // Expanded, it streams live (the line break it was opened after included).
    view.setThinkingExpanded(row, true);
    QVERIFY(view.document()->toPlainText().contains("count the experts"));
    model.appendText(row, {}, QStringLiteral("Eight are used."));
    QVERIFY2(view.document()->toPlainText().contains("experts.\nEight are used."),
             qPrintable(view.document()->toPlainText()));
    QTest::qWait(20);
    model.appendText(row, QStringLiteral("Eight."), {});
    model.finish(row, State::Done, nullptr);
    QVERIFY(view.document()->toPlainText().contains("Thought for"));
    // Clicking the header collapses it again.
    QVERIFY(view.isThinkingExpanded(row));
    view.activate(QStringLiteral("think:1"));
    QVERIFY(!view.isThinkingExpanded(row));
    QVERIFY(!view.document()->toPlainText().contains("Eight are used."));
    QVERIFY(view.document()->toPlainText().contains("Eight."));
}

void TestChatView::linksBecomeActions()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    QUrl opened;
    view.setUrlOpener([&](const QUrl &u) { opened = u; });
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "q"));
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, "see [docs](https://example.org/x)"));
    QVERIFY(written(view));
    QSignalSpy edit(&view, &ChatView::editRequested);
    QSignalSpy regen(&view, &ChatView::regenerateRequested);
    QSignalSpy del(&view, &ChatView::deleteRequested);
    view.activate(view.actionHref(0, "edit"));
    view.activate(view.actionHref(1, "regenerate"));
    view.activate(view.actionHref(1, "delete"));
    QCOMPARE(edit.count(), 1);
    QCOMPARE(edit.at(0).at(0).toInt(), 0);
    QCOMPARE(regen.count(), 1);
    QCOMPARE(del.at(0).at(0).toInt(), 1);
    QSignalSpy copied(&view, &ChatView::copied);
    view.activate(view.actionHref(1, "copy"));
    QCOMPARE(QGuiApplication::clipboard()->text(), QString("see [docs](https://example.org/x)"));
    QCOMPARE(copied.count(), 1);
    view.activate("https://example.org/x");
    QCOMPARE(opened, QUrl("https://example.org/x"));
    view.activate("file:///etc/passwd"); // only web links leave the app
    QCOMPARE(opened, QUrl("https://example.org/x"));
    // Deleting a message takes its frame out; the rest stays.
    model.removeMessage(0);
    QVERIFY(!view.document()->toPlainText().contains("You"));
    QVERIFY(view.document()->toPlainText().contains("docs"));
}

// "‹ 2/2 Copy" and "1/2 › Copy": the arrows came and went, moving every link after them, so a
// second click on the same place did something else (a helper found it). Both arrows stay.
void TestChatView::versionArrowsKeepTheirPlace()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "q"));
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, "first", State::Done));
    model.beginNewVersion(row);
    model.appendText(row, QStringLiteral("second"), {});
    model.finish(row, State::Done, nullptr);
    QVERIFY(written(view));
    const auto footer = [&] {
        for (QTextBlock b = view.document()->begin(); b.isValid(); b = b.next())
            if (b.text().contains("/2"))
                return b.text();
        return QString();
    };
    const QString atLast = footer();
    model.setCurrentVersion(row, 0);
    const QString atFirst = footer();
    QVERIFY2(atLast.startsWith(QString::fromUtf8("‹   2/2   ›   Copy")), qPrintable(atLast));
    QVERIFY2(atFirst.startsWith(QString::fromUtf8("‹   1/2   ›   Copy")), qPrintable(atFirst));
    QCOMPARE(atFirst.indexOf("Copy"), atLast.indexOf("Copy"));
    // Only the arrow that goes somewhere is a link.
    QVERIFY(!view.actionHref(row, "next").isEmpty());
    QVERIFY(view.toHtml().contains(view.actionHref(row, "next")));
    QVERIFY(!view.toHtml().contains(view.actionHref(row, "prev")));
}

void TestChatView::parseHighlighterHtml()
{
    const QString html = QStringLiteral(
        "<!DOCTYPE html>\n<html><body><pre>\n<span style=\"color:#0057ae;\">int</span> a <span "
        "style=\"font-weight:bold;\">=</span> &quot;&lt;&amp;&gt;&quot;;\n</pre></body></html>");
    const auto r = CodeHighlighter::parseHtml(html);
    QCOMPARE(r.text, QString("int a = \"<&>\";\n"));
    QCOMPARE(r.runs.size(), 2);
    QCOMPARE(r.runs[0], (CodeHighlighter::Run{0, 3, "#0057ae", false, false}));
    QCOMPARE(r.runs[1].start, 6);
    QVERIFY(r.runs[1].bold);
    QCOMPARE(CodeHighlighter::definitionFor("py"), QString("Python"));
    QCOMPARE(CodeHighlighter::definitionFor("C++"), QString("C++"));
}

// A stored chat opens with its pictures' types only; their bytes come after (the history reads
// them off the GUI thread). Meanwhile the picture is a tile that says which it is and does not
// open; with its bytes it shows its size and opens.
void TestChatView::pictureStillBeingRead()
{
    const QByteArray png = redPng();
    ChatModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ChatView view;
    view.setChatModel(&model);
    auto question = ChatModel::make(ChatModel::Author::User, QStringLiteral("What is this?"));
    question.images = {{QByteArray(), QStringLiteral("image/png")}};
    model.appendMessage(question);
    QVERIFY(written(view));
    const auto tooltip = [&view] { return firstImageTooltip(view); };
    QCOMPARE(tooltip(), QString("Image 1 of 1. Click to view."));
    const auto link = QRegularExpression(QStringLiteral("href=\"(image:\\d+:0)\"")).match(view.toHtml());
    QVERIFY2(link.hasMatch(), qPrintable(view.toHtml().left(2000)));
    QSignalSpy open(&view, &ChatView::imageRequested);
    view.activate(link.captured(1));
    QCOMPARE(open.count(), 0);
    model.setImages(0, {{png, QStringLiteral("image/png")}});
    QCOMPARE(tooltip(), QString("Image 1 of 1, 200 × 100 pixels. Click to view."));
    const auto again = QRegularExpression(QStringLiteral("href=\"(image:\\d+:0)\"")).match(view.toHtml());
    QVERIFY(again.hasMatch());
    view.activate(again.captured(1));
    QCOMPARE(open.count(), 1);
    QCOMPARE(open.first().first().value<ChatImage>().data, png);
}

QTEST_MAIN(TestChatView)
#include "tst_chatview.moc"
