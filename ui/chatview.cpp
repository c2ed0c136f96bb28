#include "chatview.h"

#include "chatmodel.h"

#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

ChatView::ChatView(QWidget *parent) : QTextBrowser(parent)
{
    setOpenExternalLinks(true);
    setReadOnly(true);
    document()->setDocumentMargin(12);
}

void ChatView::setChatModel(ChatModel *model)
{
    m_model = model;
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        for (int r = first; r <= last; ++r)
            appendMessage(r);
    });
    connect(model, &QAbstractItemModel::modelReset, this, &ChatView::rebuild);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &ChatView::rebuild);
    connect(model, &QAbstractItemModel::dataChanged, this, &ChatView::onDataChanged);
    rebuild();
}

QString ChatView::roleTitle(const QString &role) const
{
    if (role == QLatin1String("user"))
        return tr("You");
    if (role == QLatin1String("assistant"))
        return tr("Assistant");
    return tr("System");
}

void ChatView::rebuild()
{
    clear();
    m_rendered.clear();
    if (!m_model)
        return;
    for (int r = 0; r < m_model->rowCount(); ++r)
        appendMessage(r);
}

void ChatView::appendMessage(int row)
{
    // Rows are only ever appended at the end while streaming; anything else rebuilds.
    if (row != m_rendered.size()) {
        rebuild();
        return;
    }
    const auto &m = m_model->message(row);
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    if (row > 0)
        c.insertBlock();
    QTextCharFormat title;
    title.setFontWeight(QFont::Bold);
    title.setForeground(palette().color(QPalette::Link));
    c.insertText(roleTitle(m.role), title);
    c.insertBlock();
    c.setCharFormat(QTextCharFormat());
    m_rendered.append(Rendered{});
    appendTail(row);
    if (m.state != ChatModel::State::Streaming)
        writeFooter(row);
}

void ChatView::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &)
{
    for (int r = topLeft.row(); r <= bottomRight.row() && r < m_rendered.size(); ++r) {
        if (r != m_rendered.size() - 1) {
            rebuild(); // an older message changed: rare, redo the layout
            return;
        }
        appendTail(r);
        if (m_model->message(r).state != ChatModel::State::Streaming)
            writeFooter(r);
    }
}

void ChatView::appendTail(int row)
{
    const auto &m = m_model->message(row);
    Rendered &done = m_rendered[row];
    QScrollBar *bar = verticalScrollBar();
    const bool follow = bar->value() >= bar->maximum() - 4;
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    if (m.reasoning.size() > done.reasoning) {
        QTextCharFormat f;
        f.setFontItalic(true);
        f.setForeground(palette().color(QPalette::PlaceholderText));
        c.insertText(m.reasoning.mid(done.reasoning), f);
        done.reasoning = m.reasoning.size();
    }
    if (m.content.size() > done.content) {
        if (done.content == 0 && done.reasoning > 0)
            c.insertBlock();
        c.insertText(m.content.mid(done.content), QTextCharFormat());
        done.content = m.content.size();
    }
    if (follow)
        bar->setValue(bar->maximum());
}

void ChatView::writeFooter(int row)
{
    Rendered &done = m_rendered[row];
    if (done.footer)
        return;
    done.footer = true;
    const auto &m = m_model->message(row);
    QString text;
    if (m.state == ChatModel::State::Stopped)
        text = tr("Stopped");
    else if (m.state == ChatModel::State::Failed)
        text = tr("Failed");
    if (m.hasStats && m.role == QLatin1String("assistant")) {
        const auto &s = m.stats;
        const QString stats = tr("%1 tokens · %2 tok/s · first token %3 ms")
                                  .arg(s.generatedTokens)
                                  .arg(s.generationTokensPerSecond, 0, 'f', 1)
                                  .arg(s.timeToFirstTokenMs, 0, 'f', 0);
        text = text.isEmpty() ? stats : text + QStringLiteral(" · ") + stats;
        if (s.trimmedMessages > 0)
            text += QStringLiteral(" · ") + tr("%n older message(s) left out to fit the context", "", s.trimmedMessages);
    }
    if (text.isEmpty())
        return;
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    c.insertBlock();
    QTextCharFormat f;
    f.setForeground(palette().color(QPalette::PlaceholderText));
    f.setFontPointSize(font().pointSizeF() * 0.85);
    c.insertText(text, f);
}
