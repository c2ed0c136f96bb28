#include "codehighlighter.h"

#include "workpool.h"

#include <QCryptographicHash>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>

#ifdef SHOEHORN_HAVE_KF6_SYNTAX
#include <KSyntaxHighlighting/AbstractHighlighter>
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Format>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/State>
#include <KSyntaxHighlighting/Theme>
#endif
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace {
#ifdef SHOEHORN_HAVE_KF6_SYNTAX
constexpr int kMaxProcesses = 1; // one in-process job at a time: the repository is not thread-safe
#else
constexpr int kMaxProcesses = 2;
#endif
const char *const kTool = "kate-syntax-highlighter";

QString unescape(QStringView s)
{
    QString out;
    out.reserve(s.size());
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (s[i] != QLatin1Char('&')) {
            out += s[i];
            continue;
        }
        const qsizetype semi = s.indexOf(QLatin1Char(';'), i);
        if (semi < 0) {
            out += s[i];
            continue;
        }
        const QStringView name = s.mid(i + 1, semi - i - 1);
        if (name == u"lt")
            out += QLatin1Char('<');
        else if (name == u"gt")
            out += QLatin1Char('>');
        else if (name == u"amp")
            out += QLatin1Char('&');
        else if (name == u"quot")
            out += QLatin1Char('"');
        else if (name == u"apos" || name == u"#39")
            out += QLatin1Char('\'');
        else if (name.startsWith(u'#')) {
            bool ok = false;
            const uint code = name.startsWith(u"#x") ? name.mid(2).toUInt(&ok, 16) : name.mid(1).toUInt(&ok, 10);
            if (!ok) {
                out += s.mid(i, semi - i + 1);
            } else {
                const char32_t c = code;
                out += QString::fromUcs4(&c, 1);
            }
        } else {
            out += s.mid(i, semi - i + 1);
        }
        i = semi;
    }
    return out;
}

#ifdef SHOEHORN_HAVE_KF6_SYNTAX
// In-process highlighting: one line at a time, state carried across lines.
class RunCollector : public KSyntaxHighlighting::AbstractHighlighter
{
public:
    CodeHighlighter::Result highlight(const QString &code)
    {
        CodeHighlighter::Result r;
        r.text = code;
        KSyntaxHighlighting::State state;
        qsizetype lineStart = 0;
        for (const QString &line : code.split(QLatin1Char('\n'))) {
            m_offset = int(lineStart);
            m_runs = &r.runs;
            state = highlightLine(line, state);
            lineStart += line.size() + 1;
        }
        return r;
    }

protected:
    void applyFormat(int offset, int length, const KSyntaxHighlighting::Format &format) override
    {
        CodeHighlighter::Run run{m_offset + offset, length, {}, format.isBold(theme()), format.isItalic(theme())};
        if (format.hasTextColor(theme()))
            run.color = format.textColor(theme()).name();
        if (!run.color.isEmpty() || run.bold || run.italic)
            m_runs->append(run);
    }

private:
    int m_offset = 0;
    QList<CodeHighlighter::Run> *m_runs = nullptr;
};

KSyntaxHighlighting::Repository &repository()
{
    static KSyntaxHighlighting::Repository repo; // used from one worker at a time (see request)
    return repo;
}
#endif
} // namespace

CodeHighlighter::CodeHighlighter(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<CodeHighlighter::Result>();
}

CodeHighlighter::~CodeHighlighter() = default;

bool CodeHighlighter::available()
{
#ifdef SHOEHORN_HAVE_KF6_SYNTAX
    return true;
#else
    static const bool found = !QStandardPaths::findExecutable(QString::fromLatin1(kTool)).isEmpty();
    return found;
#endif
}

QString CodeHighlighter::definitionFor(const QString &fence)
{
    static const QHash<QString, QString> aliases{
        {"py", "Python"},        {"python", "Python"},       {"python3", "Python"},     {"rs", "Rust"},
        {"rust", "Rust"},        {"ts", "TypeScript"},       {"typescript", "TypeScript"},
        {"sh", "Bash"},          {"shell", "Bash"},          {"bash", "Bash"},          {"console", "Bash"},
        {"zsh", "Zsh"},          {"c", "C"},                 {"h", "C"},                {"java", "Java"},
        {"go", "Go"},            {"golang", "Go"},           {"html", "HTML"},          {"xml", "XML"},
        {"css", "CSS"},          {"sql", "SQL"},             {"yaml", "YAML"},          {"yml", "YAML"},
        {"toml", "TOML"},        {"md", "Markdown"},         {"markdown", "Markdown"},  {"cmake", "CMake"},
        {"make", "Makefile"},    {"makefile", "Makefile"},   {"kotlin", "Kotlin"},      {"kt", "Kotlin"},
        {"swift", "Swift"},      {"ruby", "Ruby"},           {"rb", "Ruby"},            {"php", "PHP/PHP"},
        {"lua", "Lua"},          {"diff", "Diff"},           {"patch", "Diff"},         {"dockerfile", "Dockerfile"},
        {"docker", "Dockerfile"}, {"ini", "INI Files"},      {"cs", "C#"},              {"csharp", "C#"},
        {"c#", "C#"},            {"cpp", "C++"},             {"c++", "C++"},            {"cxx", "C++"},
        {"hpp", "C++"},          {"cc", "C++"},              {"js", "JavaScript"},      {"javascript", "JavaScript"},
        {"json", "JSON"},        {"jsx", "JavaScript React (JSX)"}, {"tsx", "TypeScript React (TSX)"},
        {"r", "R Script"},       {"perl", "Perl"},           {"pl", "Perl"},            {"haskell", "Haskell"},
        {"hs", "Haskell"},       {"scala", "Scala"},         {"powershell", "PowerShell"}, {"ps1", "PowerShell"},
        {"latex", "LaTeX"},      {"tex", "LaTeX"},           {"asm", "GNU Assembler"},  {"qml", "QML"},
        {"glsl", "GLSL"},        {"zig", "Zig"},             {"dart", "Dart"},
    };
    const QString key = fence.trimmed().toLower();
    return aliases.value(key, fence.trimmed());
}

CodeHighlighter::Result CodeHighlighter::parseHtml(const QString &html)
{
    Result r;
    const qsizetype preOpen = html.indexOf(QLatin1String("<pre>"));
    const qsizetype preClose = html.lastIndexOf(QLatin1String("</pre>"));
    if (preOpen < 0 || preClose < preOpen)
        return r;
    QStringView body = QStringView(html).mid(preOpen + 5, preClose - preOpen - 5);
    if (body.startsWith(u'\n'))
        body = body.mid(1); // the tool starts <pre> with a newline of its own
    static const QRegularExpression colorRe(QStringLiteral("color:(#[0-9a-fA-F]{6})"));
    QList<Run> open; // nested spans: the innermost wins
    qsizetype i = 0;
    while (i < body.size()) {
        if (body[i] == QLatin1Char('<')) {
            const qsizetype close = body.indexOf(QLatin1Char('>'), i);
            if (close < 0)
                break;
            const QStringView tag = body.mid(i + 1, close - i - 1);
            if (tag.startsWith(u"span")) {
                Run run;
                const QString style = tag.toString();
                const auto m = colorRe.match(style);
                if (m.hasMatch())
                    run.color = m.captured(1);
                run.bold = style.contains(QLatin1String("font-weight:bold"));
                run.italic = style.contains(QLatin1String("font-style:italic"));
                run.start = int(r.text.size());
                open.append(run);
            } else if (tag.startsWith(u"/span") && !open.isEmpty()) {
                Run run = open.takeLast();
                run.length = int(r.text.size()) - run.start;
                if (run.length > 0 && (!run.color.isEmpty() || run.bold || run.italic))
                    r.runs.append(run);
            }
            i = close + 1;
            continue;
        }
        const qsizetype next = body.indexOf(QLatin1Char('<'), i);
        const qsizetype end = next < 0 ? body.size() : next;
        r.text += unescape(body.mid(i, end - i));
        i = end;
    }
    // Outer spans were appended after inner ones; order by start so views apply them simply.
    std::stable_sort(r.runs.begin(), r.runs.end(), [](const Run &a, const Run &b) { return a.start < b.start; });
    return r;
}

int CodeHighlighter::request(const QString &language, const QString &code)
{
    const int ticket = m_nextTicket++;
    const QString definition = definitionFor(language);
    const QString key = QString::fromLatin1(
        QCryptographicHash::hash((definition + QChar(0) + QLatin1Char(m_dark ? 'd' : 'l') + code).toUtf8(),
                                 QCryptographicHash::Sha1)
            .toHex());
    if (const Result *cached = m_cache.object(key)) {
        const Result copy = *cached;
        QTimer::singleShot(0, this, [this, ticket, copy] { emit highlighted(ticket, copy); });
        return ticket;
    }
    if (definition.isEmpty() || !available()) {
        QTimer::singleShot(0, this, [this, ticket] { emit failed(ticket); });
        return ticket;
    }
    m_queue.enqueue({ticket, definition, code, key});
    startNext();
    return ticket;
}

void CodeHighlighter::startNext()
{
    while (m_running < kMaxProcesses && !m_queue.isEmpty()) {
        const Job job = m_queue.dequeue();
        ++m_running;
#ifdef SHOEHORN_HAVE_KF6_SYNTAX
        // One job at a time in-process (the repository is not shared across threads).
        auto *watcher = new QFutureWatcher<Result>(this);
        const bool dark = m_dark;
        connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, job] {
            const Result r = watcher->result();
            watcher->deleteLater();
            --m_running;
            if (r.text.isEmpty() && !job.code.isEmpty()) {
                emit failed(job.ticket);
            } else {
                m_cache.insert(job.key, new Result(r));
                emit highlighted(job.ticket, r);
            }
            startNext();
        });
        watcher->setFuture(QtConcurrent::run(workPool(), [job, dark] {
            RunCollector h;
            const auto def = repository().definitionForName(job.definition);
            if (!def.isValid())
                return Result{};
            h.setDefinition(def);
            h.setTheme(repository().defaultTheme(dark ? KSyntaxHighlighting::Repository::DarkTheme
                                                      : KSyntaxHighlighting::Repository::LightTheme));
            return h.highlight(job.code);
        }));
        return;
#else
        auto *p = new QProcess(this);
        connect(p, &QProcess::finished, this, [this, p, job](int code, QProcess::ExitStatus status) {
            finishJob(p, job, status == QProcess::NormalExit && code == 0);
        });
        connect(p, &QProcess::errorOccurred, this, [this, p, job](QProcess::ProcessError e) {
            if (e == QProcess::FailedToStart)
                finishJob(p, job, false);
        });
        p->start(QString::fromLatin1(kTool),
                 {QStringLiteral("-f"), QStringLiteral("html"), QStringLiteral("-t"),
                  m_dark ? QStringLiteral("Breeze Dark") : QStringLiteral("Breeze Light"), QStringLiteral("-s"),
                  job.definition, QStringLiteral("--stdin")});
        p->write(job.code.toUtf8());
        p->closeWriteChannel();
#endif
    }
}

void CodeHighlighter::finishJob(QProcess *process, const Job &job, bool ok)
{
    process->deleteLater();
    process->disconnect(this);
    --m_running;
    startNext();
    if (!ok) {
        emit failed(job.ticket);
        return;
    }
    // Read on the pool: the HTML of a 400-line block took 6.7 ms to parse on the GUI thread.
    auto *parsing = new QFutureWatcher<Result>(this);
    connect(parsing, &QFutureWatcherBase::finished, this, [this, parsing, job] {
        parsing->deleteLater();
        const Result r = parsing->result();
        if (r.text.isEmpty()) {
            emit failed(job.ticket);
            return;
        }
        m_cache.insert(job.key, new Result(r));
        emit highlighted(job.ticket, r);
    });
    parsing->setFuture(QtConcurrent::run(workPool(), [html = process->readAllStandardOutput()] {
        return parseHtml(QString::fromUtf8(html));
    }));
}
