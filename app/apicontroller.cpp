#include "apicontroller.h"

#include "apihost.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
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
    o.apiKey = key.toStdString();
    o.metrics = metrics;
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
    return config.key.isEmpty() && !ApiServer::isLoopback(config.host.trimmed().toStdString());
}

ApiConfig ApiController::loadConfig()
{
    QSettings s;
    ApiConfig c;
    c.host = s.value(QStringLiteral("api/host"), c.host).toString();
    c.port = s.value(QStringLiteral("api/port"), c.port).toInt();
    c.parallel = s.value(QStringLiteral("api/parallel"), c.parallel).toInt();
    c.metrics = s.value(QStringLiteral("api/metrics"), c.metrics).toBool();
    QFile f(keyFilePath());
    if (f.open(QIODevice::ReadOnly))
        c.key = QString::fromUtf8(f.readLine()).trimmed();
    return c;
}

void ApiController::saveConfig(const ApiConfig &c)
{
    QSettings s;
    s.setValue(QStringLiteral("api/host"), c.host);
    s.setValue(QStringLiteral("api/port"), c.port);
    s.setValue(QStringLiteral("api/parallel"), c.parallel);
    s.setValue(QStringLiteral("api/metrics"), c.metrics);
    // The key never goes into the settings file (often world-readable): a file only the user reads.
    const QString path = keyFilePath();
    if (c.key.isEmpty()) {
        QFile::remove(path);
        return;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return;
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    f.write(c.key.toUtf8() + '\n');
    f.commit();
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
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
    saveConfig(config);
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
    const ApiServerOptions o = m_config.options();
    if (Error e = ApiServer::checkOptions(o)) {
        emit failed(e, 0);
        return;
    }
    setState(State::Starting);
    auto host = m_host;
    QtConcurrent::run([host, o] {
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
    QtConcurrent::run([host] { host->stop(); }).then(this, [this] {
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
    QtConcurrent::run([host] { return host->status(); }).then(this, [this](const std::optional<ApiStatus> &s) {
        m_polling = false;
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

QString ApiController::curlExample() const
{
    QString auth;
    if (!m_config.key.isEmpty())
        auth = QStringLiteral("  -H \"Authorization: Bearer %1\" \\\n").arg(m_config.key);
    return QStringLiteral("curl %1/v1/chat/completions \\\n"
                          "  -H \"Content-Type: application/json\" \\\n%2"
                          "  -d '{\"model\": \"%3\", \"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}'\n")
        .arg(m_baseUrl, auth, m_alias);
}

QString ApiController::pythonExample() const
{
    return QStringLiteral("# pip install openai\n"
                          "from openai import OpenAI\n\n"
                          "client = OpenAI(base_url=\"%1/v1\", api_key=\"%2\")\n"
                          "stream = client.chat.completions.create(\n"
                          "    model=\"%3\",\n"
                          "    messages=[{\"role\": \"user\", \"content\": \"Hello\"}],\n"
                          "    stream=True,\n"
                          ")\n"
                          "for chunk in stream:\n"
                          "    print(chunk.choices[0].delta.content or \"\", end=\"\", flush=True)\n")
        .arg(m_baseUrl, m_config.key.isEmpty() ? QStringLiteral("none") : m_config.key, m_alias);
}

QString ApiController::javascriptExample() const
{
    return QStringLiteral("// npm install openai   (save as chat.mjs, run: node chat.mjs)\n"
                          "import OpenAI from 'openai';\n\n"
                          "const client = new OpenAI({ baseURL: '%1/v1', apiKey: '%2' });\n"
                          "const stream = await client.chat.completions.create({\n"
                          "  model: '%3',\n"
                          "  messages: [{ role: 'user', content: 'Hello' }],\n"
                          "  stream: true,\n"
                          "});\n"
                          "for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');\n")
        .arg(m_baseUrl, m_config.key.isEmpty() ? QStringLiteral("none") : m_config.key, m_alias);
}
