#pragma once

// What ChatStore's files share (chatstore.cpp: the rows; chatstoreschema.cpp: the file, its
// schema and transactions). Not for other classes.
#include "chatstore.h"

#include <QDateTime>
#include <QSqlError>
#include <QSqlQuery>

#include <string>

namespace chatstore_detail {

// Qt binds a null QString as SQL NULL; the schema wants '' for "no text".
inline QString nn(const QString &s)
{
    return s.isNull() ? QStringLiteral("") : s;
}

inline QString now()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

using shoehorn::Error;
using shoehorn::ErrorCode;

inline Error unwritable(const QSqlError &e)
{
    return {ErrorCode::FileUnwritable, e.text().toStdString()};
}

// An UPDATE or DELETE of one row by id: SQLite's reason, or the row that is not there.
inline ChatStore::Done oneRow(QSqlQuery &q, const char *what, qint64 id)
{
    if (!q.exec())
        return unwritable(q.lastError());
    if (q.numRowsAffected() != 1)
        return Error{ErrorCode::InvalidArgument, "no " + std::string(what) + " " + std::to_string(id)};
    return {};
}

} // namespace chatstore_detail
