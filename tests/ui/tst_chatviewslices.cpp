// The chat view with long content: a chat written a few milliseconds of the event loop at a
// time, long code blocks written and coloured in pieces, a streamed block kept when its fence
// closes, a message on screen written again in one edit, and where the view opens.
#include "chatmodel.h"
#include "chatview.h"
#include "chatviewtesting.h"
#include "codehighlighter.h"
#include "stallprobe.h"

#include <QElapsedTimer>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextFrame>
#include <QtTest>

using State = ChatModel::State;
using namespace ChatViewTesting;

class TestChatViewSlices : public QObject
{
    Q_OBJECT
private slots:
    void longChatIsWrittenInSlices();
    void messageOnScreenIsWrittenAgainInOneEdit();
    void longCodeBlockIsWrittenAndColouredInSlices();
    void longCodeBlockIsWrittenInPieces();
    void windowsLineEndsAreColouredInPlace();
    void streamedCodeBlockStaysWhenItsFenceCloses_data();
    void streamedCodeBlockStaysWhenItsFenceCloses();
    void longProseIsWrittenInSlices();
    void pictureReadWhileItsMessageIsWritten();
    void thinkingOpenedWhileItsMessageIsWritten();
    void writtenBeforeShownOpensAtTheBottom();
};

// A stored chat of 150 messages (2.7 KB answers with a code block) opened: 414 ms of writing on
// the GUI thread when it was one go. It is written a slice at a time, the window answering in
// between, and painted once complete; the view ends at the newest message, every code block
// there. A message is written whole (3 ms alone, 6-7 ms with another test beside it on two
// cores), so the longest stall reads 7-14 ms alone and up to 21 ms beside another test: it is
// held to two frames here, which the one-go writing (414 ms) fails; the painting is checked
// directly (it cost 18-21 ms alone when each slice was painted).
void TestChatViewSlices::longChatIsWrittenInSlices()
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
void TestChatViewSlices::messageOnScreenIsWrittenAgainInOneEdit()
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

// A 2000-line code block is written and coloured a few milliseconds at a time: Qt lays text out
// as it is inserted (written in one go it held the GUI thread for 82 ms; a 400-line block's
// colours 31 ms, its text 24 ms).
void TestChatViewSlices::longCodeBlockIsWrittenAndColouredInSlices()
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
void TestChatViewSlices::longCodeBlockIsWrittenInPieces()
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
void TestChatViewSlices::windowsLineEndsAreColouredInPlace()
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

void TestChatViewSlices::streamedCodeBlockStaysWhenItsFenceCloses_data()
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
void TestChatViewSlices::streamedCodeBlockStaysWhenItsFenceCloses()
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
void TestChatViewSlices::longProseIsWrittenInSlices()
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
void TestChatViewSlices::pictureReadWhileItsMessageIsWritten()
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
void TestChatViewSlices::thinkingOpenedWhileItsMessageIsWritten()
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
void TestChatViewSlices::writtenBeforeShownOpensAtTheBottom()
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

QTEST_MAIN(TestChatViewSlices)
#include "tst_chatviewslices.moc"
