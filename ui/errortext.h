#pragma once

#include "conversationrepository.h"
#include "error.h"

#include <QCoreApplication>
#include <QString>

namespace shoehorn {
struct OomRetry;
struct SpeculationOff;
}

// Turns engine error codes into translated sentences for people.
class ErrorText
{
    Q_DECLARE_TR_FUNCTIONS(ErrorText)
public:
    static QString title(shoehorn::ErrorCode code);
    // The sentence for the code, then the engine's own words (`detail`) when it has any.
    static QString message(const shoehorn::Error &error);
    // What failed for memory and what is tried next, in one sentence.
    static QString retry(const shoehorn::OomRetry &retry);
    // Why speculative decoding is off although it was chosen (empty when it runs).
    static QString speculationOff(const shoehorn::SpeculationOff &off);
    // What opening the chat history found (moved aside, read-only, not saved); empty when all is well.
    static QString history(const HistoryProblem &problem);
    // What a failed write was saving, as the middle of "could not save … in the chat history".
    static QString historyWrite(ConversationRepository::Write what);
};
