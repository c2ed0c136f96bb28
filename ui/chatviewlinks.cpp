// ChatView's links: the actions under each message, code blocks' Copy, thumbnails, thinking
// headers and web links, resolved by the message's stable key.
#include "chatview.h"
#include "chatview_p.h"

#include "codeblocks.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QUrl>

int ChatView::rowOfKey(int key) const
{
    for (int i = 0; i < m_rendered.size(); ++i)
        if (m_rendered[i].key == key)
            return i;
    return -1;
}

QString ChatView::actionHref(int row, const QString &action) const
{
    return row >= 0 && row < m_rendered.size() ? QStringLiteral("msg:%1:%2").arg(m_rendered[row].key).arg(action)
                                                : QString();
}

void ChatView::activate(const QString &href)
{
    if (!isComplete())
        return; // the chat shown before is still on screen: a click there is not about this one
    const QStringList parts = href.split(QLatin1Char(':'));
    const QString scheme = parts.value(0);
    if (scheme == QLatin1String("copy")) {
        const int index = parts.value(1).toInt();
        if (index >= 0 && index < m_code->count()) {
            QGuiApplication::clipboard()->setText(m_code->text(index));
            emit copied(tr("The code block is on the clipboard."));
        }
        return;
    }
    if (scheme == QLatin1String("image")) {
        const int row = rowOfKey(parts.value(1).toInt());
        const int index = parts.value(2).toInt();
        // A picture whose bytes are still being read from the history opens once they are there.
        if (row >= 0 && index >= 0 && index < m_model->message(row).images.size() &&
            !m_model->message(row).images.at(index).data.isEmpty())
            emit imageRequested(m_model->message(row).images.at(index));
        return;
    }
    if (scheme == QLatin1String("think")) {
        const int row = rowOfKey(parts.value(1).toInt());
        if (row >= 0)
            setThinkingExpanded(row, !m_rendered[row].thinkingOpen);
        return;
    }
    if (scheme == QLatin1String("msg")) {
        const int row = rowOfKey(parts.value(1).toInt());
        if (row < 0)
            return;
        const QString action = parts.value(2);
        const auto &m = m_model->message(row);
        if (action == QLatin1String("copy")) {
            QGuiApplication::clipboard()->setText(m.content);
            emit copied(tr("The message is on the clipboard."));
        } else if (action == QLatin1String("edit"))
            emit editRequested(row);
        else if (action == QLatin1String("regenerate"))
            emit regenerateRequested(row);
        else if (action == QLatin1String("delete"))
            emit deleteRequested(row);
        else if (action == QLatin1String("prev"))
            emit versionRequested(row, m.current - 1);
        else if (action == QLatin1String("next"))
            emit versionRequested(row, m.current + 1);
        return;
    }
    const QUrl url(href);
    if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https") ||
        url.scheme() == QLatin1String("mailto"))
        m_openUrl(url);
}
