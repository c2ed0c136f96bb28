#pragma once

#include "apiserver.h"
#include "chattypes.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

class ApiHost;

Q_DECLARE_METATYPE(shoehorn::ApiStatus)

// What the Local API dialog edits; remembered in QSettings, the key in a file of its own.
struct ApiConfig {
    QString host = QStringLiteral("127.0.0.1");
    int port = 8080;
    QString key;               // generated the first time the API starts, unless noKey
    bool noKey = false;        // the user chose to run without a key (loopback only)
    int parallel = 2;          // slots beside the chat's, as the guides run llama-server
    bool metrics = false;
    // Web pages of other sites that may use the API (llama-server's --cors-origins): "localhost"
    // (pages from this computer), a comma-separated list of origins, or "*" (every site).
    QString corsOrigins = QStringLiteral("localhost");
    bool operator==(const ApiConfig &) const = default;
    shoehorn::ApiServerOptions options() const;
};

// The local API seen from the GUI thread: start, stop, and a status poll once a second while
// it runs. The HTTP side belongs to the loaded model's server loop (ApiHost); opening, closing
// and asking for the slots take milliseconds and run on a pool thread (a Start while a new
// projector restarts the loop waits there for it, Starting meanwhile). The API's slots are
// part of the model's context (ApiHost::setSlots): a change applies to the next load.
class ApiController : public QObject
{
    Q_OBJECT
public:
    enum class State { Off, Starting, On, Stopping };
    Q_ENUM(State)

    explicit ApiController(std::shared_ptr<ApiHost> host, QObject *parent = nullptr);
    ~ApiController() override;

    // Remembered settings. The key file is written readable by the user only (0600); why it
    // could not be written (a full disk) is returned. The controller saves on the settings
    // writer's thread (AppSettings::checkedWriteInBackground) and keeps that as keyProblem().
    static ApiConfig loadConfig();
    static shoehorn::Error saveConfig(const ApiConfig &config);
    static QString keyFilePath();
    // A strong random key (32 bytes from the OS); empty if the OS gave none.
    static QString newKey();
    // A host other machines reach, with no key: refused (the UI says so before trying).
    static bool needsKey(const ApiConfig &config);
    // An IP address or a name a host could have (letters, digits, '-', '_', '.'): said before anything
    // else about a host field holding neither, with no name lookup on the caller's thread.
    static bool plausibleHost(const QString &host);
    // What the server would refuse of these settings (a bad origin list, a key with spaces…).
    static shoehorn::Error check(const ApiConfig &config);
    // What is open wider than the safe default, for the loud warning: other computers (a
    // non-loopback host), every web site (corsOrigins "*"), no key. Empty: nothing.
    static QStringList exposures(const ApiConfig &config);
    // The environment variable the examples read the key from, and how to set it from the key file.
    static QString keyVariable() { return QStringLiteral("SHOEHORN_API_KEY"); }
    static QString keyExport();
    // Why llama.cpp's web chat is not served at `/` by this build; empty when it is.
    static QString webChatMissing();

    ApiConfig config() const { return m_config; }
    // Why the last save could not write (or remove) the key file; none when it could. The key in
    // use still works, until the next start of Shoehorn.
    shoehorn::Error keyProblem() const { return m_keyProblem; }
    void setConfig(const ApiConfig &config); // saves
    // The loaded model's name in /v1/models, for the examples (the server restarts on a new model).
    void setModelAlias(const QString &alias);
    void setPollInterval(int ms) { m_poll.setInterval(ms); }

    State state() const { return m_state; }
    bool isOn() const { return m_state == State::On; }
    QString baseUrl() const { return m_baseUrl; }
    const shoehorn::ApiStatus &status() const { return m_status; }
    // The API's slots in the loaded (or next) model's context, on or off (for the planner).
    int apiSlots() const { return m_config.parallel; }

    void start();
    void stop();

    // Examples that work as pasted against the running server.
    QString curlExample() const;
    QString pythonExample() const;
    QString javascriptExample() const;

signals:
    void stateChanged(ApiController::State state);
    // AddressInUse carries a free port to offer (0: none found).
    void failed(const shoehorn::Error &error, int freePort);
    void keyProblemChanged(const shoehorn::Error &problem);
    void statusUpdated(const shoehorn::ApiStatus &status);
    void modelAliasChanged(const QString &alias);
    // The controller changed the settings itself (the key generated on the first start).
    void configChanged(const ApiConfig &config);

private:
    void setState(State s);
    void save();
    void poll();
    void started(const shoehorn::Error &error, int freePort, const QString &url);

    std::shared_ptr<ApiHost> m_host;
    ApiConfig m_config;
    shoehorn::Error m_keyProblem;
    QString m_alias;
    State m_state = State::Off;
    QString m_baseUrl;
    shoehorn::ApiStatus m_status;
    QTimer m_poll;
    bool m_polling = false;
};
