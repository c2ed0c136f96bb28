#pragma once

#include <QCoreApplication>
#include <QString>

// Turns engine error codes into translated sentences for people.
class ErrorText
{
    Q_DECLARE_TR_FUNCTIONS(ErrorText)
public:
    static QString title(int errorCode);
    static QString message(int errorCode, const QString &detail);
};
