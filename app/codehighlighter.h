#pragma once

#include <QCache>
#include <QHash>
#include <QList>
#include <QObject>
#include <QQueue>
#include <QString>

class QProcess;

// Highlights fenced code with KDE syntax-highlighting, never on the GUI thread's time: with
// KF6SyntaxHighlighting in-process when the build found it, otherwise through the KF5
// `kate-syntax-highlighter` command (Debian 12), a few processes at a time. Results arrive
// as colour runs over the code's text.
class CodeHighlighter : public QObject
{
    Q_OBJECT
public:
    struct Run {
        int start = 0;
        int length = 0;
        QString color; // "#rrggbb", empty: default text colour
        bool bold = false;
        bool italic = false;
        bool operator==(const Run &) const = default;
    };
    struct Result {
        QString text; // the code as highlighted (equal to what was asked for)
        QList<Run> runs;
    };

    explicit CodeHighlighter(QObject *parent = nullptr);
    ~CodeHighlighter() override;

    // Whether highlighting is possible at all on this machine.
    static bool available();
    void setDarkTheme(bool dark) { m_dark = dark; }
    // Queues `code`; highlighted(ticket, ...) follows, or failed(ticket) when the language is
    // unknown or the highlighter is missing. Returns the ticket.
    int request(const QString &language, const QString &code);

    // The syntax definition name for a Markdown fence word ("py" -> "Python"); the word
    // itself when no alias is known.
    static QString definitionFor(const QString &fence);
    // Parses kate-syntax-highlighter's HTML into plain text and runs.
    static Result parseHtml(const QString &html);

signals:
    void highlighted(int ticket, const CodeHighlighter::Result &result);
    void failed(int ticket);

private:
    struct Job {
        int ticket;
        QString definition;
        QString code;
        QString key;
    };
    void startNext();
    void finishJob(QProcess *process, const Job &job, bool ok);

    bool m_dark = false;
    int m_nextTicket = 1;
    QQueue<Job> m_queue;
    int m_running = 0;
    QCache<QString, Result> m_cache{200};
};
