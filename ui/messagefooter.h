#pragma once

#include "chatmodel.h"

#include <QCoreApplication>
#include <QStringList>

#include <functional>

class MessageWriter;
class QTextCursor;

// The lines under a message: how it ended and its statistics, then its actions as links
// (versions ‹ n/m ›, copy, edit, regenerate or answer, delete).
class MessageFooter
{
    Q_DECLARE_TR_FUNCTIONS(MessageFooter)
public:
    static QStringList status(const ChatModel::Message &m);
    // `href` makes the link of an action ("copy", "edit", "prev", ...) of this message.
    static void write(QTextCursor &c, const MessageWriter &writer, const ChatModel::Message &m, bool last,
                      const std::function<QString(const QString &action)> &href);
};
