// The chat view, checked on its document: Markdown, code blocks, thinking, streaming, links.
#include "chatmodel.h"
#include "chatview.h"
#include "codehighlighter.h"
#include "markdownsplit.h"
#include "messagewriter.h"
#include "stallprobe.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QClipboard>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTextFrame>
#include <QTextTable>
#include <QtTest>

using State = ChatModel::State;

namespace {
const char *const kAnswer = "# Plan\n\n"
                            "Some **bold** text with `inline code` and a [link](https://example.org).\n\n"
                            "- one\n- two\n\n"
                            "| GPU | tok/s |\n|---|---|\n| 3060 | 45 |\n\n"
                            "```python\ndef f(x):\n    return \"x\" * 2\n```\n\n"
                            "Done.";

// `view` shows `model`, given one answer; whether its first code block was coloured in time.
bool showHighlighted(ChatModel &model, ChatView &view, const QString &answer)
{
    view.setChatModel(&model);
    QSignalSpy done(&view, &ChatView::codeHighlighted);
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, answer));
    return done.wait(5000);
}

// Whether every message of `view`'s model is in its document in time. Messages are written a few
// milliseconds of the event loop's turn at a time, so on a slow machine the second one may wait a turn.
bool written(ChatView &view)
{
    return QTest::qWaitFor([&view] { return view.isComplete(); }, 5000);
}

// `n` paragraphs of Markdown: `pattern` with %1 the paragraph's number.
QString paragraphs(int n, const QString &pattern)
{
    QString text;
    for (int p = 0; p < n; ++p)
        text += pattern.arg(p) + QStringLiteral("\n\n");
    return text;
}

// A 200x100 red PNG.
QByteArray redPng()
{
    QImage red(200, 100, QImage::Format_RGB32);
    red.fill(Qt::red);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    red.save(&buffer, "PNG");
    return png;
}

// The tooltip of the first picture in `view`.
QString firstImageTooltip(ChatView &view)
{
    for (QTextBlock b = view.document()->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (it.fragment().charFormat().isImageFormat())
                return it.fragment().charFormat().toolTip();
    return QString();
}

// `view` on screen (800x600), showing `model`; whether it was exposed in time.
bool showOnScreen(ChatModel &model, ChatView &view)
{
    view.resize(800, 600);
    view.show();
    const bool exposed = QTest::qWaitForWindowExposed(&view);
    view.setChatModel(&model);
    return exposed;
}

// Every character format in the document, with the text it covers.
QList<QPair<QString, QTextCharFormat>> fragments(QTextDocument *doc)
{
    QList<QPair<QString, QTextCharFormat>> out;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            out.append({it.fragment().text(), it.fragment().charFormat()});
    return out;
}

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
    void longChatIsWrittenInSlices();
    void longCodeBlockIsWrittenAndColouredInSlices();
    void longCodeBlockIsWrittenInPieces();
    void windowsLineEndsAreColouredInPlace();
    void streamedCodeBlockStaysWhenItsFenceCloses_data();
    void streamedCodeBlockStaysWhenItsFenceCloses();
    void longProseIsWrittenInSlices();
    void pictureReadWhileItsMessageIsWritten();
    void thinkingOpenedWhileItsMessageIsWritten();
    void writtenBeforeShownOpensAtTheBottom();
    void messageOnScreenIsWrittenAgainInOneEdit();
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

// A stored chat of 150 messages (2.7 KB answers with a code block) opened: 414 ms of writing on
// the GUI thread when it was one go. It is written a slice at a time, the window answering in
// between, and painted once complete; the view ends at the newest message, every code block
// there. A message is written whole (3 ms alone, 6-7 ms with another test beside it on two
// cores), so the longest stall reads 7-14 ms alone and up to 21 ms beside another test: it is
// held to two frames here, which the one-go writing (414 ms) fails; the painting is checked
// directly (it cost 18-21 ms alone when each slice was painted).
void TestChatView::longChatIsWrittenInSlices()
{
    QString answer;
    for (int p = 0; p < 8; ++p)
        answer += QStringLiteral("Paragraph %1 with **bold** text, `inline code` and a [link](https://example.com). ")
                      .arg(p)
                      .repeated(4) +
                  "\n\n";
    answer += "```cpp\nint main() {\n    return 0;\n}\n```\n\n- one\n- two\n- three\n";
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    StallProbe probe;
    probe.start();
    QElapsedTimer opened;
    QTimer::singleShot(20, &model, [&model, answer, &opened] { // as ChatController::openConversation does it
        opened.start();
        model.clear();
        for (int i = 0; i < 75; ++i) {
            model.appendMessage(ChatModel::make(ChatModel::Author::User, QStringLiteral("Question %1?").arg(i)));
            model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, answer));
        }
    });
    StallProbe::spin(30);
    QVERIFY(!view.isComplete()); // still writing, the event loop running
    QVERIFY(StallProbe::waitFor([&view] { return view.isComplete(); }));
    qInfo("written in %lld ms", opened.elapsed());
    QVERIFY(view.updatesEnabled()); // painted once it is all there
    StallProbe::spin(20);
    QVERIFY(probe.within("a 150-message chat is written", 2 * StallProbe::kFrameMs));
    QCOMPARE(view.codeBlockCount(), 75);
    QVERIFY(view.toPlainText().contains("Question 74?"));
    QCOMPARE(view.verticalScrollBar()->value(), view.verticalScrollBar()->maximum()); // the newest in view
    // Rows still waiting are removed (the chat is left at once): the view paints again.
    model.clear();
    for (int i = 0; i < 20; ++i)
        model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, answer));
    QVERIFY(!view.isComplete());
    QVERIFY(!view.updatesEnabled()); // not painted half written
    // A link clicked meanwhile is on the chat still shown, not this one: nothing happens.
    QSignalSpy deleted(&view, &ChatView::deleteRequested);
    view.activate(view.actionHref(0, "delete"));
    QCOMPARE(deleted.count(), 0);
    // Rows removed across what is written so far (edit and resend): the written ones go too.
    model.truncate(0);
    QVERIFY(view.toPlainText().trimmed().isEmpty());
    for (int i = 0; i < 20; ++i)
        model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, answer));
    QVERIFY(!view.isComplete());
    model.clear(); // the chat is left before it is all written
    QTRY_VERIFY(view.updatesEnabled());
    QVERIFY(view.toPlainText().trimmed().isEmpty());
}

// A message on screen written again (edited, its thinking opened) is one change of the document,
// laid out once at its end: a 400-line code block took 12 ms written in pieces, 5 ms in one edit.
// It reads as the same message written anew.
void TestChatView::messageOnScreenIsWrittenAgainInOneEdit()
{
    QString code;
    for (int i = 0; i < 400; ++i)
        code += QStringLiteral("    const int value%1 = compute(%1, \"text %1\", 0x%1) * 2; // note %1\n").arg(i);
    ChatModel::Message message = ChatModel::make(ChatModel::Author::Assistant, "Intro.\n\n```cpp\n" + code + "```\nAfter.");
    message.reasoning = QStringLiteral("Thought about it.");
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    const int row = model.appendMessage(message);
    QTRY_VERIFY(written(view));
    QSignalSpy changes(view.document(), &QTextDocument::contentsChange);
    QElapsedTimer timer;
    timer.start();
    message.content += QStringLiteral("\n\nEdited.");
    model.setContent(row, message.content);
    qInfo("a 400-line message edited: written again in %.1f ms", timer.nsecsElapsed() / 1e6);
    QCOMPARE(changes.count(), 1);
    changes.clear();
    view.setThinkingExpanded(row, true);
    QCOMPARE(changes.count(), 1);
    ChatModel freshModel;
    ChatView fresh;
    QVERIFY(showOnScreen(freshModel, fresh));
    freshModel.appendMessage(message);
    QTRY_VERIFY(written(fresh));
    fresh.setThinkingExpanded(row, true);
    QCOMPARE(view.toPlainText(), fresh.toPlainText());
    QVERIFY(view.toPlainText().contains("Edited.") && view.toPlainText().contains("Thought about it."));
}

QTEST_MAIN(TestChatView)
// A 2000-line code block is written and coloured a few milliseconds at a time: Qt lays text out
// as it is inserted (written in one go it held the GUI thread for 82 ms; a 400-line block's
// colours 31 ms, its text 24 ms).
void TestChatView::longCodeBlockIsWrittenAndColouredInSlices()
{
    if (!CodeHighlighter::available())
        QSKIP("kate-syntax-highlighter is not installed");
    QString code;
    for (int i = 0; i < 2000; ++i)
        code += QStringLiteral("    const int value%1 = compute(%1, \"text %1\", 0x%1) * 2; // note %1\n").arg(i);
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    QSignalSpy done(&view, &ChatView::codeHighlighted);
    StallProbe probe;
    probe.start();
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, "```cpp\n" + code + "```\nAfter the code."));
    QVERIFY(StallProbe::waitFor([&done] { return done.count() > 0; }));
    StallProbe::spin(20);
    QVERIFY(probe.within("a 2000-line code block is written and coloured"));
    // All of it, in its frame, before what follows it; the last line's comment has the first
    // line's comment colour.
    QTextFrame *frame = view.codeBlockFrame(0);
    QVERIFY(frame);
    QTextCursor inFrame(view.document());
    inFrame.setPosition(frame->firstPosition());
    inFrame.setPosition(frame->lastPosition(), QTextCursor::KeepAnchor);
    QCOMPARE(inFrame.selection().toPlainText() + "\n", code);
    QVERIFY(view.document()->find("After the code.").position() > frame->lastPosition());
    const auto commentFormat = [&view](int position) {
        const QTextBlock b = view.document()->findBlock(position);
        QTextCursor c(b);
        c.setPosition(b.position() + int(b.text().indexOf("// note")) + 1);
        return c.charFormat();
    };
    const QTextCharFormat firstComment = commentFormat(frame->firstPosition());
    const QTextCharFormat lastComment = commentFormat(frame->lastPosition() - 1);
    QCOMPARE(lastComment.foreground().color(), firstComment.foreground().color());
    QCOMPARE(lastComment.fontItalic(), firstComment.fontItalic());
    QVERIFY(firstComment.foreground().color() != view.palette().color(QPalette::Text)); // coloured at all
    QCOMPARE(view.codeBlockText(0) + "\n", code);
}

// The same without the highlighter: a long block of a message written for the first time goes in
// pieces, whole in the end and before what follows it; one already on screen (a message laid out
// again) is replaced whole at once: it does not shrink and grow again. A streamed one stays whole
// when its fence closes (streamedCodeBlockStaysWhenItsFenceCloses).
void TestChatView::longCodeBlockIsWrittenInPieces()
{
    QString code;
    for (int i = 0; i < 2000; ++i)
        code += QStringLiteral("    const int value%1 = compute(%1); // note %1\n").arg(i);
    const int shown = int(code.size()) - 1; // without its last line end
    const auto length = [](QTextFrame *f) { return f ? f->lastPosition() - f->firstPosition() : -1; };
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    ChatModel::Message stored = ChatModel::make(ChatModel::Author::Assistant, "```cpp\n" + code + "```\nAfter the code.");
    stored.reasoning = QStringLiteral("Thought about it.");
    const int row = model.appendMessage(stored);
    QTRY_VERIFY(view.codeBlockFrame(0)); // (on a slow machine the row waits for the next slice)
    QVERIFY(length(view.codeBlockFrame(0)) < shown / 2);
    QTRY_COMPARE(length(view.codeBlockFrame(0)), shown);
    QVERIFY(view.document()->find("After the code.").position() > view.codeBlockFrame(0)->lastPosition());
    view.setThinkingExpanded(row, true); // laid out again
    QCOMPARE(length(view.codeBlockFrame(view.codeBlockCount() - 1)), shown);
    const int streaming = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QVERIFY(written(view));
    model.appendText(streaming, "```cpp\n" + code.left(code.size() / 2), {});
    model.appendText(streaming, code.mid(code.size() / 2), {});
    model.appendText(streaming, "```\nMore", {});
    QCOMPARE(length(view.codeBlockFrame(view.codeBlockCount() - 1)), shown);
}

// Code with Windows line ends (a stored or imported chat): the document holds one character per
// line break and the highlighter's runs are offsets into the code as shown, so ChatModel keeps
// "\n" only, as it does for streamed text (each "\r\n" moved the colours a character per line,
// and the block was never coloured).
void TestChatView::windowsLineEndsAreColouredInPlace()
{
    if (!CodeHighlighter::available())
        QSKIP("kate-syntax-highlighter is not installed");
    ChatModel model;
    ChatView view;
    QVERIFY(showHighlighted(model, view, "```python\nx = 1\r\ny = 2\r\nz = 3\r\nif x:\r\n    return y\n```\n"));
    QCOMPARE(view.codeBlockText(0), QString("x = 1\ny = 2\nz = 3\nif x:\n    return y"));
    QStringList keywords; // fragments with a colour of their own that are whole keywords
    QTextFrame *frame = view.codeBlockFrame(0);
    for (auto it = frame->begin(); !it.atEnd(); ++it)
        for (auto f = it.currentBlock().begin(); !f.atEnd(); ++f)
            if (f.fragment().text().trimmed() == "if" || f.fragment().text().trimmed() == "return")
                keywords << f.fragment().text().trimmed();
    QCOMPARE(keywords, QStringList({"if", "return"}));
}

void TestChatView::streamedCodeBlockStaysWhenItsFenceCloses_data()
{
    QTest::addColumn<QString>("lastBatches"); // '|' cuts them
    QTest::addColumn<QString>("lastCode");    // the code they add
    QTest::newRow("fence in one batch") << QStringLiteral("```\nAfter the code.") << QString();
    QTest::newRow("fence cut after two backticks") << QStringLiteral("``|`\nAfter the code.") << QString();
    QTest::newRow("last line and fence together")
        << QStringLiteral("int last = 1;\n```\nAfter the code.") << QStringLiteral("int last = 1;\n");
    QTest::newRow("answer ends in the block") << QString() << QString();
    // Batches cut between "\r" and "\n": the tail showed the "\r", the model keeps "\n" only
    // (ChatModel); the block keeps what agrees and ends as the answer written whole shows it.
    QTest::newRow("a line end cut in two") << QStringLiteral("int a;|\r|\nint b;\n```\nAfter the code.")
                                           << QStringLiteral("int a;\nint b;\n");
    QTest::newRow("a line end cut in two, the fence later")
        << QStringLiteral("int a;|\r|\nint b;\n|```\nAfter the code.") << QStringLiteral("int a;\nint b;\n");
}

// The block streamed on screen becomes the finished one when its fence closes, instead of being
// written again: a 400-line block took 24 ms to write anew, once per block.
void TestChatView::streamedCodeBlockStaysWhenItsFenceCloses()
{
    QFETCH(QString, lastBatches);
    QFETCH(QString, lastCode);
    QString code;
    for (int i = 0; i < 400; ++i)
        code += QStringLiteral("    const int value%1 = compute(%1); // note %1\n").arg(i);
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view)); // laid out as it is written
    const int row = model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, {}, State::Streaming));
    QVERIFY(written(view));
    model.appendText(row, "Intro.\n\n```cpp\n" + code.left(code.size() / 2), {});
    model.appendText(row, code.mid(code.size() / 2), {});
    int removed = 0, added = 0;
    connect(view.document(), &QTextDocument::contentsChange, this, [&](int, int charsRemoved, int charsAdded) {
        removed += charsRemoved;
        added += charsAdded;
    });
    QElapsedTimer closing;
    closing.start();
    for (const QString &batch : lastBatches.split(QLatin1Char('|'), Qt::SkipEmptyParts))
        model.appendText(row, batch, {});
    model.finish(row, State::Done, nullptr);
    qInfo("the fence closed in %.1f ms (%d characters removed, %d added)", double(closing.nsecsElapsed()) / 1e6,
          removed, added);
    QVERIFY2(removed < 50, qPrintable(QString::number(removed))); // the block was not written again
    QVERIFY2(added < 200, qPrintable(QString::number(added)));
    const QString last = lastCode;
    QCOMPARE(view.codeBlockCount(), 1);
    QCOMPARE(view.codeBlockText(0), displayedCode(code + last));
    QVERIFY(!view.document()->toPlainText().contains("``"));
    QCOMPARE(view.document()->toPlainText().contains("After the code."), !lastBatches.isEmpty());
    // Its Copy link is the finished block's.
    bool copyLink = false;
    for (const auto &[text, f] : fragments(view.document()))
        copyLink |= text == "Copy" && f.anchorHref() == "copy:0";
    QVERIFY(copyLink);
    view.activate("copy:0");
    QCOMPARE(QGuiApplication::clipboard()->text(), displayedCode(code + last));
    if (CodeHighlighter::available()) // and is coloured as one
        QTRY_VERIFY_WITH_TIMEOUT(view.codeBlockHighlighted(0), 10000);
    // It reads as the same answer written whole.
    ChatModel whole;
    ChatView wholeView;
    wholeView.setChatModel(&whole);
    whole.appendMessage(model.message(row));
    QTRY_COMPARE(wholeView.document()->toRawText(), view.document()->toRawText()); // its long block in slices
}

// A message of many paragraphs (a stored chat opened) goes in a few milliseconds of the event
// loop's turn at a time, like the rows around it: 500 paragraphs held the window 59 ms at once.
void TestChatView::longProseIsWrittenInSlices()
{
    const QString prose = paragraphs(500, QStringLiteral("Paragraph %1 says **something** about `experts` and layers."));
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    StallProbe probe;
    probe.start();
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "Tell me everything."));
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, prose));
    model.appendMessage(ChatModel::make(ChatModel::Author::User, "And then?"));
    QVERIFY(!view.isComplete());
    QVERIFY(StallProbe::waitFor([&view] { return view.isComplete(); }));
    StallProbe::spin(20);
    QVERIFY(probe.within("500 paragraphs are written"));
    // In order: the answer's links after its last paragraph, the next question after them.
    const QString text = view.toPlainText();
    int at = 0;
    for (const QString &part : {QStringLiteral("Paragraph 0 says"), QStringLiteral("Paragraph 250 says"),
                                QStringLiteral("Paragraph 499 says"), QStringLiteral("Copy"),
                                QStringLiteral("And then?")}) {
        const int found = int(text.indexOf(part, at));
        QVERIFY2(found >= at, qPrintable(part));
        at = found;
    }
    QCOMPARE(text.count("Paragraph 1 says"), 1);
    // Text that comes for a message still being written goes after what it had.
    ChatModel streamed;
    ChatView streamedView;
    QVERIFY(showOnScreen(streamed, streamedView));
    const int row = streamed.appendMessage(ChatModel::make(ChatModel::Author::Assistant, prose, State::Streaming));
    QVERIFY(!streamedView.isComplete()); // its first blocks are in, the rest waits for a slice
    streamed.appendText(row, QStringLiteral("The last word."), {});
    QVERIFY(written(streamedView));
    const QString streamedText = streamedView.toPlainText();
    QVERIFY(streamedText.indexOf("Paragraph 497 says") < streamedText.indexOf("Paragraph 498 says"));
    QVERIFY(streamedText.indexOf("Paragraph 498 says") < streamedText.indexOf("Paragraph 499 says"));
    QVERIFY(streamedText.indexOf("Paragraph 499 says") < streamedText.indexOf("The last word."));
    QCOMPARE(streamedText.count("Paragraph 499 says"), 1);
}

// A long stored question whose picture comes from the history while the question is still
// being written (ChatController::onPicturesRead): laid out again with it, each paragraph once.
void TestChatView::pictureReadWhileItsMessageIsWritten()
{
    const QString prose = paragraphs(500, QStringLiteral("Paragraph %1 of the question."));
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    auto question = ChatModel::make(ChatModel::Author::User, prose);
    question.images = {{QByteArray(), QStringLiteral("image/png")}};
    model.appendMessage(question);
    QVERIFY(!view.isComplete());
    QSignalSpy shown(&view, &ChatView::thumbnailShown);
    model.setImages(0, {{redPng(), QStringLiteral("image/png")}});
    QVERIFY(!view.isComplete()); // laid out again slice by slice, not in one go
    QVERIFY(written(view));
    QCOMPARE(firstImageTooltip(view), QString("Image 1 of 1, 200 × 100 pixels. Click to view."));
    QVERIFY(shown.count() > 0 || shown.wait(5000)); // the thumbnail, not the plain tile
    const QString text = view.toPlainText();
    QCOMPARE(text.count("Paragraph 0 of"), 1);
    QCOMPARE(text.count("Paragraph 499 of"), 1);
    QVERIFY(text.indexOf("Paragraph 498 of") < text.indexOf("Paragraph 499 of"));
}

// The thinking opened while its long message is still written the first time: written again from
// the start slice by slice, as pictures read for it are (it went in whole, in one turn).
void TestChatView::thinkingOpenedWhileItsMessageIsWritten()
{
    auto answer = ChatModel::make(ChatModel::Author::Assistant, paragraphs(500, QStringLiteral("Paragraph %1 of the answer.")));
    answer.reasoning = QStringLiteral("Weighed the experts.");
    ChatModel model;
    ChatView view;
    QVERIFY(showOnScreen(model, view));
    model.appendMessage(answer);
    QVERIFY(!view.isComplete());
    view.setThinkingExpanded(0, true);
    QVERIFY(!view.isComplete()); // again slice by slice, not in one go
    QVERIFY(written(view));
    const QString text = view.toPlainText();
    QCOMPARE(text.count("Weighed the experts."), 1);
    QCOMPARE(text.count("Paragraph 499 of"), 1);
    QVERIFY(text.indexOf("Weighed the experts.") < text.indexOf("Paragraph 0 of"));
    QVERIFY(text.indexOf("Paragraph 498 of") < text.indexOf("Paragraph 499 of"));
}

// A chat written before the window is shown (imported at start) opens at its newest message, as
// one opened later does: its size is known only once it is laid out on screen.
void TestChatView::writtenBeforeShownOpensAtTheBottom()
{
    ChatModel model;
    ChatView view;
    view.setChatModel(&model);
    for (int i = 0; i < 40; ++i) {
        model.appendMessage(ChatModel::make(ChatModel::Author::User, QStringLiteral("Question %1?").arg(i)));
        model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, paragraphs(3, QStringLiteral("Answer %1."))));
    }
    QVERIFY(written(view));
    view.resize(800, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QScrollBar *bar = view.verticalScrollBar();
    QTRY_VERIFY(bar->maximum() > 0);
    QTRY_COMPARE(bar->value(), bar->maximum());
    // Scrolled up by the user, it stays where it is put.
    bar->triggerAction(QAbstractSlider::SliderToMinimum);
    model.appendMessage(ChatModel::make(ChatModel::Author::User, QStringLiteral("One more?")));
    QVERIFY(written(view));
    QTest::qWait(50);
    QCOMPARE(bar->value(), 0);
}

#include "tst_chatview.moc"
