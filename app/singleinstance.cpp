#include "singleinstance.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>

namespace {
constexpr qint64 kMaxMessage = 1 << 20;
}

SingleInstance::SingleInstance(QString name, QObject *parent) : QObject(parent), m_name(std::move(name)) {}

SingleInstance::~SingleInstance() = default;

QString SingleInstance::defaultName()
{
    const QString override = qEnvironmentVariable("SHOEHORN_INSTANCE_NAME");
    if (!override.isEmpty())
        return override;
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = QStringLiteral("user");
    return QStringLiteral("io.github.shoehorn.Shoehorn-") + user;
}

bool SingleInstance::forwardToRunning(const QStringList &paths, int timeoutMs)
{
    // Runs before the event loop exists: the blocking waits here are not a nested loop.
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(timeoutMs))
        return false;
    QJsonArray list;
    for (const QString &p : paths)
        list.append(p);
    socket.write(QJsonDocument(list).toJson(QJsonDocument::Compact) + '\n');
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    // A hung instance still accepts connections (the kernel queues them): only its answer
    // shows that it took the files. Without one, this launch opens its own window.
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(timeoutMs))
            return false;
    }
    const bool taken = socket.readLine(16).trimmed() == "ok";
    socket.disconnectFromServer();
    if (socket.state() != QLocalSocket::UnconnectedState)
        socket.waitForDisconnected(timeoutMs);
    return taken;
}

bool SingleInstance::listen()
{
    if (m_server)
        return true;
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(m_name)) {
        // A crashed instance leaves its socket file behind; nobody answered, so remove it.
        QLocalServer::removeServer(m_name);
        if (!m_server->listen(m_name)) {
            delete m_server;
            m_server = nullptr;
            return false;
        }
    }
    connect(m_server, &QLocalServer::newConnection, this, &SingleInstance::onConnection);
    return true;
}

void SingleInstance::onConnection()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
            if (!socket->canReadLine()) {
                if (socket->bytesAvailable() > kMaxMessage)
                    socket->abort();
                return;
            }
            const QJsonDocument doc = QJsonDocument::fromJson(socket->readLine(kMaxMessage));
            QStringList paths;
            for (const auto &v : doc.array())
                if (v.isString())
                    paths << v.toString();
            emit filesReceived(paths);
            socket->write("ok\n"); // the second launch may end now
        });
    }
}
