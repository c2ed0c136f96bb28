#include "chatjson.h"

#include "chatstore.h"
#include "modelsettings.h"

#include <QDateTime>
#include <QFileInfo>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace ChatJson {

namespace {
QJsonObject statsObject(const ChatModel::Version &v)
{
    if (!v.hasStats)
        return v.reasoningMs >= 0 ? QJsonObject{{"reasoningMs", v.reasoningMs}} : QJsonObject{};
    const auto &s = v.stats;
    QJsonObject o{{"promptTokens", s.promptTokens},
                  {"reusedTokens", s.reusedTokens},
                  {"promptMs", s.promptMs},
                  {"generatedTokens", s.generatedTokens},
                  {"generationMs", s.generationMs},
                  {"tokensPerSecond", s.generationTokensPerSecond},
                  {"timeToFirstTokenMs", s.timeToFirstTokenMs},
                  {"trimmedMessages", s.trimmedMessages},
                  {"contextUsed", s.contextUsed},
                  {"contextSize", s.contextSize},
                  {"stopReason", QString::fromLatin1(shoehorn::stopReasonName(s.stopReason))}};
    if (s.draftTokens > 0) {
        o.insert("draftTokens", s.draftTokens);
        o.insert("draftAccepted", s.draftAccepted);
    }
    if (v.reasoningMs >= 0)
        o.insert("reasoningMs", v.reasoningMs);
    return o;
}
} // namespace

QString statsToJson(const ChatModel::Version &v)
{
    if (!v.hasStats && v.reasoningMs < 0)
        return {};
    const QJsonObject o = statsObject(v);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

void statsFromJson(const QString &json, ChatModel::Version &v)
{
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    if (o.isEmpty())
        return;
    v.reasoningMs = o.value("reasoningMs").toInteger(-1);
    if (!o.contains("generatedTokens"))
        return;
    auto &s = v.stats;
    s.promptTokens = o.value("promptTokens").toInt();
    s.reusedTokens = o.value("reusedTokens").toInt();
    s.promptMs = o.value("promptMs").toDouble();
    s.generatedTokens = o.value("generatedTokens").toInt();
    s.generationMs = o.value("generationMs").toDouble();
    s.generationTokensPerSecond = o.value("tokensPerSecond").toDouble();
    s.timeToFirstTokenMs = o.value("timeToFirstTokenMs").toDouble();
    s.trimmedMessages = o.value("trimmedMessages").toInt();
    s.contextUsed = o.value("contextUsed").toInt();
    s.contextSize = o.value("contextSize").toInt();
    s.draftTokens = o.value("draftTokens").toInt();
    s.draftAccepted = o.value("draftAccepted").toInt();
    const QString reason = o.value("stopReason").toString();
    for (auto r : {shoehorn::StopReason::EndOfGeneration, shoehorn::StopReason::StopString,
                   shoehorn::StopReason::MaxTokens, shoehorn::StopReason::ContextFull, shoehorn::StopReason::Cancelled})
        if (reason == QLatin1String(shoehorn::stopReasonName(r)))
            s.stopReason = r;
    v.hasStats = true;
}

QString optionsToJson(const shoehorn::GenerationOptions &o)
{
    return QString::fromUtf8(QJsonDocument(generationToJson(o)).toJson(QJsonDocument::Compact));
}

bool optionsFromJson(const QString &json, shoehorn::GenerationOptions &o)
{
    const QJsonObject j = QJsonDocument::fromJson(json.toUtf8()).object();
    if (j.isEmpty())
        return false;
    generationFromJson(j, o);
    return true;
}

QString toMarkdown(const ExportHeader &h, const Messages &chat)
{
    QString out = QStringLiteral("# %1\n\n").arg(h.title.isEmpty() ? QStringLiteral("Chat") : h.title);
    if (!h.modelPath.isEmpty())
        out += QStringLiteral("Model: `%1`  \n").arg(QFileInfo(h.modelPath).fileName());
    out += QStringLiteral("Exported: %1\n\n").arg(QDateTime::currentDateTime().toString(Qt::ISODate));
    if (!h.systemPrompt.isEmpty())
        out += QStringLiteral("## System\n\n%1\n\n").arg(h.systemPrompt);
    for (const ChatModel::Message &m : chat) {
        const bool user = m.author == ChatModel::Author::User;
        out += user ? QStringLiteral("## User\n\n") : QStringLiteral("## Assistant\n\n");
        if (!m.reasoning.isEmpty()) {
            // A collapsed block in renderers that know <details>, plain text elsewhere.
            out += QStringLiteral("<details><summary>Thinking</summary>\n\n%1\n\n</details>\n\n").arg(m.reasoning.trimmed());
        }
        // Images inline as data URLs: the export stands alone, as the chat does.
        for (int k = 0; k < m.images.size(); ++k)
            out += QStringLiteral("![image %1](data:%2;base64,%3)\n\n")
                       .arg(k + 1)
                       .arg(m.images[k].mime, QString::fromLatin1(m.images[k].data.toBase64()));
        out += m.content.trimmed() + QStringLiteral("\n\n");
        if (m.state == ChatModel::State::Stopped)
            out += QStringLiteral("*(stopped)*\n\n");
        if (!user && m.hasStats)
            out += QStringLiteral("*%1 tokens, %2 tok/s*\n\n")
                       .arg(m.stats.generatedTokens)
                       .arg(m.stats.generationTokensPerSecond, 0, 'f', 1);
    }
    return out;
}

QByteArray toJson(const ExportHeader &h, const Messages &chat, const shoehorn::GenerationOptions &options)
{
    QJsonArray messages;
    for (const ChatModel::Message &m : chat) {
        QJsonObject o{{"role", ChatModel::authorName(m.author)}, {"content", m.content}, {"state", ChatModel::stateName(m.state)}};
        if (!m.reasoning.isEmpty())
            o.insert("reasoning", m.reasoning);
        if (!m.images.isEmpty()) {
            QJsonArray images;
            for (const ChatImage &img : m.images)
                images.append(QJsonObject{{"mime", img.mime}, {"data", QString::fromLatin1(img.data.toBase64())}});
            o.insert("images", images);
        }
        if (m.hasStats || m.reasoningMs >= 0)
            o.insert("stats", statsObject(m));
        if (m.versionCount() > 1) {
            QJsonArray versions;
            for (int v = 0; v < m.versions.size(); ++v) {
                const ChatModel::Version &ver = v == m.current ? m : m.versions.at(v);
                QJsonObject vo{{"content", ver.content}, {"reasoning", ver.reasoning}, {"state", ChatModel::stateName(ver.state)}};
                if (ver.hasStats || ver.reasoningMs >= 0)
                    vo.insert("stats", statsObject(ver));
                versions.append(vo);
            }
            o.insert("versions", versions);
            o.insert("shownVersion", m.current);
        }
        messages.append(o);
    }
    const QJsonObject root{
        {"format", "shoehorn-chat"},
        {"version", 1},
        {"title", h.title},
        {"model", h.modelPath},
        {"systemPrompt", h.systemPrompt},
        {"settings", QJsonDocument::fromJson(optionsToJson(options).toUtf8()).object()},
        {"exported", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {"messages", messages},
    };
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

shoehorn::Error exportToFile(const QString &path, const ExportHeader &header, const Messages &chat,
                             const shoehorn::GenerationOptions &options)
{
    const bool json = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
    const QByteArray data = json ? toJson(header, chat, options) : toMarkdown(header, chat).toUtf8();
    QSaveFile f(path);
    if (f.open(QIODevice::WriteOnly) && f.write(data) == data.size() && f.commit())
        return {};
    return {shoehorn::ErrorCode::FileUnwritable, f.errorString().toStdString()};
}

shoehorn::Result<QByteArray> readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return shoehorn::Error{f.exists() ? shoehorn::ErrorCode::FileUnreadable : shoehorn::ErrorCode::FileNotFound,
                               f.errorString().toStdString()};
    return f.readAll();
}

namespace {

// Why the messages of a chat export cannot be imported, or empty when they can.
QString checkMessages(const QJsonValue &messages)
{
    if (!messages.isArray())
        return QStringLiteral("\"messages\" is not a list");
    int number = 0;
    for (const QJsonValue &v : messages.toArray()) {
        ++number;
        if (!v.isObject())
            return QStringLiteral("message %1 is not an object").arg(number);
        const QJsonObject o = v.toObject();
        ChatModel::Author author;
        if (!ChatModel::authorFromName(o.value("role").toString(), author))
            return QStringLiteral("message %1 has the unknown role \"%2\"").arg(number).arg(o.value("role").toString().left(40));
        for (const char *key : {"content", "reasoning"})
            if (o.contains(QLatin1String(key)) && !o.value(QLatin1String(key)).isString())
                return QStringLiteral("the %1 of message %2 is not text").arg(QLatin1String(key)).arg(number);
        const QJsonValue images = o.value("images");
        if (!images.isUndefined() && !images.isArray())
            return QStringLiteral("the images of message %1 are not a list").arg(number);
        int image = 0;
        for (const QJsonValue &img : images.toArray()) {
            ++image;
            const QByteArray data = QByteArray::fromBase64(img.toObject().value("data").toString().toLatin1(),
                                                           QByteArray::AbortOnBase64DecodingErrors);
            if (!img.isObject() || data.isEmpty())
                return QStringLiteral("image %1 of message %2 is not base64 data").arg(image).arg(number);
        }
        const QJsonValue versions = o.value("versions");
        if (!versions.isUndefined() && !versions.isArray())
            return QStringLiteral("the versions of message %1 are not a list").arg(number);
        const int count = int(versions.toArray().size());
        for (const QJsonValue &ver : versions.toArray())
            if (!ver.isObject() || !ver.toObject().value("content").isString())
                return QStringLiteral("a version of message %1 has no text").arg(number);
        const int shown = o.value("shownVersion").toInt(0);
        if (count > 0 && (shown < 0 || shown >= count))
            return QStringLiteral("message %1 shows version %2 of %3").arg(number).arg(shown + 1).arg(count);
    }
    return {};
}

QString statsJson(const QJsonObject &o)
{
    const QJsonObject stats = o.value("stats").toObject();
    return stats.isEmpty() ? QString() : QString::fromUtf8(QJsonDocument(stats).toJson(QJsonDocument::Compact));
}

QString storedState(const QJsonObject &o)
{
    // An answer exported mid-stream reads as stopped.
    return ChatModel::stateName(ChatModel::stateFromStored(o.value("state").toString(QStringLiteral("done"))));
}

// One checked message (see checkMessages) with its versions.
ChatStore::Done importMessage(ChatStore &store, qint64 conversation, const QJsonObject &o)
{
    ChatStore::Message m = ChatStore::message(conversation, o.value("role").toString(), o.value("content").toString(),
                                              storedState(o));
    m.reasoning = o.value("reasoning").toString();
    for (const QJsonValue &img : o.value("images").toArray()) // checked by checkMessages
        m.images.append({QByteArray::fromBase64(img.toObject().value("data").toString().toLatin1()),
                         img.toObject().value("mime").toString()});
    const auto added = store.appendMessage(conversation, m);
    if (!added)
        return added.error();
    const qint64 mid = *added;
    const QString stats = statsJson(o);
    if (!stats.isEmpty())
        if (ChatStore::Done d = store.updateMessage(mid, m.content, m.reasoning, m.state, stats); !d)
            return d;
    const QJsonArray versions = o.value("versions").toArray();
    for (const QJsonValue &ver : versions) {
        const QJsonObject vo = ver.toObject();
        const auto v = store.appendVersion(mid, {0, vo.value("content").toString(), vo.value("reasoning").toString(),
                                                 storedState(vo), statsJson(vo)});
        if (!v)
            return v.error();
    }
    if (versions.isEmpty())
        return {};
    return store.setShownVersion(mid, o.value("shownVersion").toInt());
}

} // namespace

shoehorn::Result<qint64> importJson(const QByteArray &json, ChatStore &store)
{
    QJsonParseError parse;
    const QJsonObject root = QJsonDocument::fromJson(json, &parse).object();
    QString why;
    if (parse.error != QJsonParseError::NoError)
        why = parse.errorString();
    else if (root.value("format").toString() != QLatin1String("shoehorn-chat"))
        why = QStringLiteral("not a Shoehorn chat");
    else
        why = checkMessages(root.value("messages"));
    if (!why.isEmpty())
        return shoehorn::Error{shoehorn::ErrorCode::Corrupt, why.toStdString()};
    // One transaction: a chat is imported whole or not at all.
    if (ChatStore::Done begun = store.transaction(); !begun)
        return begun.error();
    const auto fail = [&](const shoehorn::Error &e) -> shoehorn::Result<qint64> {
        (void) store.rollback(); // the failure that made it roll back is the one reported
        return e;
    };
    const auto created = store.createConversation(root.value("title").toString(), root.value("model").toString(),
                                                  root.value("systemPrompt").toString());
    if (!created)
        return fail(created.error());
    const qint64 id = *created;
    const QJsonObject settings = root.value("settings").toObject();
    if (!settings.isEmpty())
        if (ChatStore::Done d = store.setConversationSettings(
                id, root.value("systemPrompt").toString(),
                QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact)));
            !d)
            return fail(d.error());
    for (const QJsonValue &v : root.value("messages").toArray())
        if (ChatStore::Done d = importMessage(store, id, v.toObject()); !d)
            return fail(d.error());
    if (ChatStore::Done d = store.commit(); !d)
        return fail(d.error());
    return id;
}

} // namespace ChatJson
