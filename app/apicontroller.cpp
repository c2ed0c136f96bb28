#include "apicontroller.h"

#include "apihost.h"
#include "appsettings.h"
#include "workpool.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHostAddress>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

using namespace shoehorn;

namespace {

struct StartResult {
    Error error;
    int freePort = 0;
    QString url;
};

} // namespace

ApiServerOptions ApiConfig::options() const
{
    ApiServerOptions o;
    o.host = host.trimmed().toStdString();
    o.port = port;
    if (!noKey && !key.trimmed().isEmpty())
        o.apiKeys = {key.trimmed().toStdString()};
    o.metrics = metrics;
    o.corsOrigins = corsOrigins.trimmed().isEmpty() ? std::string("localhost") : corsOrigins.trimmed().toStdString();
    return o;
}

ApiController::ApiController(std::shared_ptr<ApiHost> host, QObject *parent)
    : QObject(parent), m_host(std::move(host)), m_config(loadConfig())
{
    m_host->setApiSlots(m_config.parallel);
    m_poll.setInterval(1000);
    connect(&m_poll, &QTimer::timeout, this, &ApiController::poll);
}

ApiController::~ApiController() = default;

QString ApiController::keyFilePath()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/api-key");
}

QString ApiController::newKey()
{
    return QString::fromStdString(ApiServer::generateKey());
}

bool ApiController::needsKey(const ApiConfig &config)
{
    return (config.noKey || config.key.trimmed().isEmpty()) && !ApiServer::isLoopback(config.host.trimmed().toStdString());
}

bool ApiController::plausibleHost(const QString &host)
{
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_.])?$"));
    const QString h = host.trimmed();
    return !QHostAddress(h).isNull() || name.match(h).hasMatch();
}

Error ApiController::check(const ApiConfig &config)
{
    return ApiServer::checkOptions(config.options());
}

QStringList ApiController::exposures(const ApiConfig &config)
{
    QStringList out;
    const QString host = config.host.trimmed();
    if (plausibleHost(host) && !ApiServer::isLoopback(host.toStdString())) // else refused at Start: open to none
        out << tr("other computers that reach %1 can use the API (with the key)").arg(host);
    if (ApiServer::splitKeys(config.corsOrigins.toStdString()) == std::vector<std::string>{"*"} ||
        config.corsOrigins.contains(QLatin1Char('*')))
        out << tr("every web site you visit may send requests to the API from your browser");
    if (config.noKey)
        out << tr("no key: every program on this computer can use the API");
    return out;
}

QString ApiController::keyExport()
{
    return QStringLiteral("export %1=\"$(cat '%2')\"").arg(keyVariable(), keyFilePath());
}

QString ApiController::webChatMissing()
{
    return QString::fromStdString(shoehorn::ApiServer::webUiMissing());
}

ApiConfig ApiController::loadConfig()
{
    AppSettings::waitForWrites(); // the key file of a save still being written
    QSettings s;
    ApiConfig c;
    c.host = s.value(QStringLiteral("api/host"), c.host).toString();
    c.port = s.value(QStringLiteral("api/port"), c.port).toInt();
    c.parallel = s.value(QStringLiteral("api/parallel"), c.parallel).toInt();
    c.metrics = s.value(QStringLiteral("api/metrics"), c.metrics).toBool();
    c.noKey = s.value(QStringLiteral("api/noKey"), c.noKey).toBool();
    c.corsOrigins = s.value(QStringLiteral("api/corsOrigins"), c.corsOrigins).toString();
    QFile f(keyFilePath());
    if (f.open(QIODevice::ReadOnly))
        c.key = QString::fromUtf8(f.readLine()).trimmed();
    return c;
}

Error ApiController::saveConfig(const ApiConfig &c)
{
    {
        QSettings s;
        s.setValue(QStringLiteral("api/host"), c.host);
        s.setValue(QStringLiteral("api/port"), c.port);
        s.setValue(QStringLiteral("api/parallel"), c.parallel);
        s.setValue(QStringLiteral("api/metrics"), c.metrics);
        s.setValue(QStringLiteral("api/noKey"), c.noKey);
        s.setValue(QStringLiteral("api/corsOrigins"), c.corsOrigins);
    }
    // The key never goes into the settings file (often world-readable): a file only the user reads.
    const QString path = keyFilePath();
    if (c.key.isEmpty()) {
        if (QFile::exists(path) && !QFile::remove(path))
            return Error{ErrorCode::FileUnwritable, ("the old API key could not be removed from " + path).toStdString()};
        return {};
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile f(path);
    bool written = f.open(QIODevice::WriteOnly);
    if (written) {
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        written = f.write(c.key.toUtf8() + '\n') > 0 && f.commit();
    }
    if (!written)
        return Error{ErrorCode::FileUnwritable,
                     QStringLiteral("the API key could not be saved to %1: %2").arg(path, f.errorString()).toStdString()};
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return {};
}

// A settings write syncs the file (2-8 ms, once 52 ms) and the key file is synced to disk: not
// on the GUI thread. A key that could not be saved works until the next start, and says so. (A
// watcher, not QFuture::then(this): Qt 6.4 posts a continuation to its context from the pool
// thread even when the context has gone.)
void ApiController::save()
{
    auto *saving = new QFutureWatcher<Error>(this);
    connect(saving, &QFutureWatcherBase::finished, this, [this, saving] {
        saving->deleteLater();
        const Error e = saving->result();
        if (e.code == m_keyProblem.code && e.detail == m_keyProblem.detail)
            return;
        m_keyProblem = e;
        emit keyProblemChanged(e);
    });
    saving->setFuture(AppSettings::checkedWriteInBackground([config = m_config] { return saveConfig(config); }));
}

void ApiController::setModelAlias(const QString &alias)
{
    if (alias == m_alias)
        return;
    m_alias = alias;
    emit modelAliasChanged(alias);
}

void ApiController::setConfig(const ApiConfig &config)
{
    m_config = config;
    m_host->setApiSlots(config.parallel);
    save();
}

void ApiController::setState(State s)
{
    if (s == m_state)
        return;
    m_state = s;
    if (s == State::On)
        m_poll.start();
    else
        m_poll.stop();
    emit stateChanged(s);
}

void ApiController::start()
{
    if (m_state == State::Starting || m_state == State::Stopping)
        return;
    if (!m_config.noKey && m_config.key.trimmed().isEmpty()) {
        // Safe by default: the first start makes a key (the user may choose "no key" instead).
        const QString key = newKey();
        if (key.isEmpty()) {
            emit failed(Error{ErrorCode::InvalidArgument, "the system gave no random bytes for an API key"}, 0);
            return;
        }
        m_config.key = key;
        save();
        emit configChanged(m_config);
    }
    const ApiServerOptions o = m_config.options();
    if (Error e = ApiServer::checkOptions(o)) {
        emit failed(e, 0);
        return;
    }
    setState(State::Starting);
    auto host = m_host;
    QtConcurrent::run(workPool(), [host, o] {
        StartResult r;
        r.error = host->start(o);
        if (r.error.code == ErrorCode::AddressInUse)
            r.freePort = ApiServer::freePortAfter(o.host, o.port);
        if (!r.error)
            if (auto s = host->status())
                r.url = QString::fromStdString(s->baseUrl);
        return r;
    }).then(this, [this](const StartResult &r) { started(r.error, r.freePort, r.url); });
}

void ApiController::started(const Error &error, int freePort, const QString &url)
{
    if (m_state != State::Starting)
        return; // stopped while it started (ApiHost kept Off): this answer is no longer the state
    if (error) {
        setState(State::Off);
        emit failed(error, freePort);
        return;
    }
    m_baseUrl = url;
    setState(State::On);
    poll();
}

void ApiController::stop()
{
    if (m_state != State::On && m_state != State::Starting)
        return;
    setState(State::Stopping);
    auto host = m_host;
    QtConcurrent::run(workPool(), [host] { host->stop(); }).then(this, [this] {
        m_status = {};
        setState(State::Off);
    });
}

void ApiController::poll()
{
    if (m_polling || m_state != State::On)
        return;
    m_polling = true;
    auto host = m_host;
    QtConcurrent::run(workPool(), [host] { return host->status(); }).then(this, [this](const std::optional<ApiStatus> &s) {
        m_polling = false;
        if (m_state != State::On)
            return; // stopped while it asked: not this answer's state
        if (!s) {
            // The worker withdrew the model: the restart on the next one is pending (still
            // wanted) or failed (no longer wanted, the reason in lastError()).
            if (!m_host->wanted()) {
                setState(State::Off);
                if (Error e = m_host->lastError())
                    emit failed(e, 0);
            }
            return;
        }
        m_status = *s;
        m_baseUrl = QString::fromStdString(s->baseUrl);
        emit statusUpdated(m_status);
    });
}

// The examples never print the key: they read it from SHOEHORN_API_KEY, which the first line
// sets from the key file (a screenshot or a pasted snippet does not leak it).
QString ApiController::curlExample() const
{
    const bool key = !m_config.options().apiKeys.empty();
    const QString auth = key ? QStringLiteral("  -H \"Authorization: Bearer $%1\" \\\n").arg(keyVariable()) : QString();
    return QStringLiteral("%4curl %1/v1/chat/completions \\\n"
                          "  -H \"Content-Type: application/json\" \\\n%2"
                          "  -d '{\"model\": \"%3\", \"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}'\n")
        .arg(m_baseUrl, auth, m_alias, key ? keyExport() + QLatin1Char('\n') : QString());
}

QString ApiController::pythonExample() const
{
    const bool key = !m_config.options().apiKeys.empty();
    return QStringLiteral("# pip install openai\n"
                          "# %4\n"
                          "import os\n"
                          "from openai import OpenAI\n\n"
                          "client = OpenAI(base_url=\"%1/v1\", api_key=%2)\n"
                          "stream = client.chat.completions.create(\n"
                          "    model=\"%3\",\n"
                          "    messages=[{\"role\": \"user\", \"content\": \"Hello\"}],\n"
                          "    stream=True,\n"
                          ")\n"
                          "for chunk in stream:\n"
                          "    print(chunk.choices[0].delta.content or \"\", end=\"\", flush=True)\n")
        .arg(m_baseUrl,
             key ? QStringLiteral("os.environ[\"%1\"]").arg(keyVariable()) : QStringLiteral("\"none\""), m_alias,
             key ? QStringLiteral("in the shell first: ") + keyExport() : QStringLiteral("no API key is set"));
}

QString ApiController::javascriptExample() const
{
    const bool key = !m_config.options().apiKeys.empty();
    return QStringLiteral("// npm install openai   (save as chat.mjs, run: node chat.mjs)\n"
                          "// %4\n"
                          "import OpenAI from 'openai';\n\n"
                          "const client = new OpenAI({ baseURL: '%1/v1', apiKey: %2 });\n"
                          "const stream = await client.chat.completions.create({\n"
                          "  model: '%3',\n"
                          "  messages: [{ role: 'user', content: 'Hello' }],\n"
                          "  stream: true,\n"
                          "});\n"
                          "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');\n")
        .arg(m_baseUrl, key ? QStringLiteral("process.env.%1").arg(keyVariable()) : QStringLiteral("'none'"), m_alias,
             key ? QStringLiteral("in the shell first: ") + keyExport() : QStringLiteral("no API key is set"));
}
