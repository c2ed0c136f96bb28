#pragma once

#include <QObject>
#include <QStringList>

class QLocalServer;

// One Shoehorn per user session: a second launch hands its files to the running window
// over a local socket and exits.
class SingleInstance : public QObject
{
    Q_OBJECT
public:
    // name: the socket name; defaultName() unless tests isolate themselves.
    explicit SingleInstance(QString name = defaultName(), QObject *parent = nullptr);
    ~SingleInstance() override;

    static QString defaultName();

    // Called before the event loop: true if a running instance took `paths` (then exit).
    bool forwardToRunning(const QStringList &paths, int timeoutMs = 1500);
    // Becomes the running instance. False if the name cannot be claimed.
    bool listen();
    QString serverName() const { return m_name; }

signals:
    // Another launch asked to open these (possibly none: it only wants the window raised).
    void filesReceived(const QStringList &paths);

private:
    void onConnection();
    QString m_name;
    QLocalServer *m_server = nullptr;
};
