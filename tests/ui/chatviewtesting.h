#pragma once

// What the chat view's tests share: a view on screen, waiting for it to be written, Markdown of
// many paragraphs, a picture, and reading its document back.
#include "chatmodel.h"
#include "chatview.h"

#include <QBuffer>
#include <QImage>
#include <QSignalSpy>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

namespace ChatViewTesting {

// `view` shows `model`, given one answer; whether its first code block was coloured in time.
inline bool showHighlighted(ChatModel &model, ChatView &view, const QString &answer)
{
    view.setChatModel(&model);
    QSignalSpy done(&view, &ChatView::codeHighlighted);
    model.appendMessage(ChatModel::make(ChatModel::Author::Assistant, answer));
    return done.wait(5000);
}

// Whether every message of `view`'s model is in its document in time. Messages are written a few
// milliseconds of the event loop's turn at a time, so on a slow machine the second one may wait a turn.
inline bool written(ChatView &view)
{
    return QTest::qWaitFor([&view] { return view.isComplete(); }, 5000);
}

// `n` paragraphs of Markdown: `pattern` with %1 the paragraph's number.
inline QString paragraphs(int n, const QString &pattern)
{
    QString text;
    for (int p = 0; p < n; ++p)
        text += pattern.arg(p) + QStringLiteral("\n\n");
    return text;
}

// A 200x100 red PNG.
inline QByteArray redPng()
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
inline QString firstImageTooltip(ChatView &view)
{
    for (QTextBlock b = view.document()->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (it.fragment().charFormat().isImageFormat())
                return it.fragment().charFormat().toolTip();
    return QString();
}

// `view` on screen (800x600), showing `model`; whether it was exposed in time.
inline bool showOnScreen(ChatModel &model, ChatView &view)
{
    view.resize(800, 600);
    view.show();
    const bool exposed = QTest::qWaitForWindowExposed(&view);
    view.setChatModel(&model);
    return exposed;
}

// Every character format in the document, with the text it covers.
inline QList<QPair<QString, QTextCharFormat>> fragments(QTextDocument *doc)
{
    QList<QPair<QString, QTextCharFormat>> out;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            out.append({it.fragment().text(), it.fragment().charFormat()});
    return out;
}

} // namespace ChatViewTesting
