#pragma once

#include <QCoreApplication>
#include <QString>

namespace shoehorn {
struct OomRetry;
}

// Turns engine error codes into translated sentences for people.
class ErrorText
{
    Q_DECLARE_TR_FUNCTIONS(ErrorText)
public:
    static QString title(int errorCode);
    static QString message(int errorCode, const QString &detail);
    // What failed for memory and what is tried next, in one sentence.
    static QString retry(const shoehorn::OomRetry &retry);
};
