#pragma once

#include "chatmodel.h"
#include "error.h"
#include "settings.h"

#include <QByteArray>
#include <QString>

// JSON forms of what a chat stores (answer statistics, its generation settings) and the
// exports a user can save (Markdown and JSON).
class ChatStore;

namespace ChatJson {

QString statsToJson(const ChatModel::Version &v); // empty when the version has no stats
void statsFromJson(const QString &json, ChatModel::Version &v);

QString optionsToJson(const shoehorn::GenerationOptions &o);
bool optionsFromJson(const QString &json, shoehorn::GenerationOptions &o);

struct ExportHeader {
    QString title;
    QString modelPath;
    QString systemPrompt;
};
// The chat's messages as ChatModel::messages() gives them (a copy shares their text and
// pictures, so a pool thread can write one while the chat goes on).
using Messages = QList<ChatModel::Message>;
QString toMarkdown(const ExportHeader &header, const Messages &chat);
QByteArray toJson(const ExportHeader &header, const Messages &chat, const shoehorn::GenerationOptions &options);

// Writes the chat as Markdown, or as JSON when `path` ends in .json. Through QSaveFile: a full
// disk leaves an earlier file as it was, never half a chat. FileUnwritable (the system's reason
// as its detail) on failure. Pictures make it slow (base64, megabytes): for a pool thread.
shoehorn::Error exportToFile(const QString &path, const ExportHeader &header, const Messages &chat,
                             const shoehorn::GenerationOptions &options);
// A file's bytes: FileNotFound or FileUnreadable with the system's reason.
shoehorn::Result<QByteArray> readFile(const QString &path);

// Reads a chat exported by toJson into the store as a new conversation and returns its id.
// Corrupt (with what is wrong) when the data is not such an export, FileUnwritable (the
// database's reason) when the store refuses it: then nothing of it is kept.
shoehorn::Result<qint64> importJson(const QByteArray &json, ChatStore &store);

} // namespace ChatJson
