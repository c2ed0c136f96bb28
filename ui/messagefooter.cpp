#include "messagefooter.h"

#include "errortext.h"
#include "messagewriter.h"

#include <QTextCursor>

QStringList MessageFooter::status(const ChatModel::Message &m)
{
    QStringList parts;
    if (m.state == ChatModel::State::Stopped)
        parts << tr("Stopped");
    else if (m.state == ChatModel::State::Failed) // with why, while this session knows it (the box closed)
        parts << (m.error ? tr("Failed: %1").arg(ErrorText::message(m.error).section(QLatin1Char('\n'), 0, 0))
                          : tr("Failed"));
    if (!m.hasStats || m.author != ChatModel::Author::Assistant)
        return parts;
    const auto &s = m.stats;
    if (s.generatedTokens == 0) { // no speed and no first token to speak of ("first token 0 ms")
        if (m.state == ChatModel::State::Stopped)
            parts.last() = tr("Stopped before the answer began");
        else
            parts << tr("%n token(s)", "", 0);
    } else {
        parts << tr("%n token(s)", "", s.generatedTokens) << tr("%1 tok/s").arg(s.generationTokensPerSecond, 0, 'f', 1)
              << tr("first token %1 ms").arg(s.timeToFirstTokenMs, 0, 'f', 0);
    }
    switch (s.stopReason) {
    case shoehorn::StopReason::EndOfGeneration: parts << tr("finished"); break;
    case shoehorn::StopReason::StopString: parts << tr("stop string"); break;
    case shoehorn::StopReason::MaxTokens: parts << tr("token limit reached"); break;
    case shoehorn::StopReason::ContextFull: parts << tr("context full"); break;
    case shoehorn::StopReason::Cancelled: break; // "Stopped" says it already
    case shoehorn::StopReason::None: break;
    }
    if (s.draftTokens > 0)
        parts << tr("speculative: %1 of %2 drafted tokens accepted (%3 %)")
                     .arg(s.draftAccepted)
                     .arg(s.draftTokens)
                     .arg(100.0 * s.draftAccepted / s.draftTokens, 0, 'f', 0);
    if (s.trimmedMessages > 0)
        parts << tr("%n older message(s) left out to fit the context", "", s.trimmedMessages);
    return parts;
}

void MessageFooter::write(QTextCursor &c, const MessageWriter &writer, const ChatModel::Message &m, bool last,
                          const std::function<QString(const QString &)> &href)
{
    const QTextCharFormat note = writer.noteFormat();
    const QStringList parts = status(m);
    MessageWriter::newBlock(c);
    if (!parts.isEmpty()) {
        c.insertText(parts.join(QStringLiteral(" · ")), note);
        c.insertBlock(QTextBlockFormat(), QTextCharFormat());
    }
    auto link = [&](const QString &text, const QString &action) {
        c.insertText(text, writer.linkFormat(href(action)));
        c.insertText(QStringLiteral("   "), note);
    };
    if (m.versionCount() > 1) {
        // Both arrows always, greyed at the ends: the links after them stay where they were, so a
        // second click on ‹ or Copy lands where the first did.
        const auto arrow = [&](const QString &text, const QString &action, bool on) {
            if (on) {
                link(text, action);
            } else {
                c.insertText(text, note);
                c.insertText(QStringLiteral("   "), note);
            }
        };
        arrow(QStringLiteral("‹"), QStringLiteral("prev"), m.current > 0);
        c.insertText(QStringLiteral("%1/%2   ").arg(m.current + 1).arg(m.versionCount()), note);
        arrow(QStringLiteral("›"), QStringLiteral("next"), m.current + 1 < m.versionCount());
    }
    link(tr("Copy"), QStringLiteral("copy"));
    if (m.author == ChatModel::Author::User)
        link(tr("Edit"), QStringLiteral("edit"));
    if (last && m.author == ChatModel::Author::Assistant)
        link(tr("Regenerate"), QStringLiteral("regenerate"));
    else if (last && m.author == ChatModel::Author::User)
        link(tr("Answer"), QStringLiteral("regenerate"));
    link(tr("Delete"), QStringLiteral("delete"));
}
