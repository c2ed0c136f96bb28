// shoehorn-concurrency-bench's protocol (tools/concurrency-bench.sh), through the real window:
// AppCore and MainWindow as the app builds them (offscreen unless QT_QPA_PLATFORM says), the
// model opened as a user opens it, the local API turned on from its controller, and each "chat N
// TAG" typed into the message box and sent with the Send button. Prints "listening on URL", then
// per command {"tag": TAG, "tokens": N, "first": MS, "last": MS}: MS are the Unix-epoch
// milliseconds at which the window received the answer's first and last text (what a person
// sees, batched at ~30 Hz; an answer that came in one batch spans the engine's generation time),
// tokens the engine's count.
//   shoehorn-concurrency-window MODEL [-c N] [-t N] [--api-slots N]
#include "apicontroller.h"
#include "appcore.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "mainwindow.h"
#include "messageinput.h"
#include "modelsettings.h"

#include <QApplication>
#include <QDateTime>
#include <QPushButton>
#include <QSocketNotifier>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <iostream>
#include <string>

#include <unistd.h>

namespace {

struct Options {
    QString model;
    uint32_t context = 4096;
    int threads = 0;
    int apiSlots = 1;
    QString specType; // speculative decoding, as llama-server's --spec-type (empty: off)
};

bool parse(const QStringList &args, Options &o)
{
    if (args.size() < 2)
        return false;
    o.model = args[1];
    for (int i = 2; i + 1 < args.size(); i += 2) {
        const QString flag = args[i];
        const int value = args[i + 1].toInt();
        if (flag == "--spec-type")
            o.specType = args[i + 1];
        else if (flag == "-c")
            o.context = uint32_t(value);
        else if (flag == "-t")
            o.threads = value;
        else if (flag == "--api-slots")
            o.apiSlots = value;
        else
            return false;
    }
    return true;
}

void say(const QString &line)
{
    std::printf("%s\n", qPrintable(line));
    std::fflush(stdout);
}

// Runs "chat N TAG" commands one at a time through the window.
class Driver : public QObject
{
public:
    Driver(AppCore &core, MainWindow &window) : m_core(core), m_window(window)
    {
        ChatController *c = m_core.chat();
        connect(c, &ChatController::generationProgress, this, [this] {
            const double now = double(QDateTime::currentMSecsSinceEpoch());
            if (m_first == 0)
                m_first = now;
            m_last = now;
        });
        connect(c, &ChatController::answerFinished, this, [this](const shoehorn::GenerationStats &s) {
            if (m_tag.isEmpty())
                return;
            // A short fast answer can arrive in one batch: then the engine's own span of it.
            if (m_last - m_first < 1.0)
                m_first = m_last - s.generationMs;
            say(QStringLiteral("{\"tag\": \"%1\", \"tokens\": %2, \"first\": %3, \"last\": %4}")
                    .arg(m_tag)
                    .arg(s.generatedTokens)
                    .arg(m_first, 0, 'f', 3)
                    .arg(m_last, 0, 'f', 3));
            m_tag.clear();
        });
        connect(c, &ChatController::generationFailed, this, [this](const shoehorn::Error &e) {
            say(QStringLiteral("{\"tag\": \"%1\", \"error\": \"%2\"}").arg(m_tag, QString::fromUtf8(errorCodeName(e.code))));
            m_tag.clear();
        });
    }

    void command(const std::string &line)
    {
        const QStringList words = QString::fromStdString(line).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (words.value(0) == "quit") {
            qApp->quit();
            return;
        }
        const int n = words.value(1).toInt();
        if (words.value(0) != "chat" || n <= 0 || !m_tag.isEmpty()) {
            say(QStringLiteral("{\"error\": \"unknown command\"}"));
            return;
        }
        LoadedModel *model = m_core.model();
        shoehorn::GenerationOptions o = model->generationOptions();
        o.maxTokens = n;
        o.ignoreEos = true;
        m_core.chat()->newChat(); // each answer from a fresh chat, as the headless tool's one message
        model->setGenerationOptions(o);
        m_tag = words.value(2);
        m_first = m_last = 0;
        m_window.messageInput()->setPlainText(QStringLiteral("bench ") + m_tag);
        m_window.findChild<QPushButton *>(QStringLiteral("sendButton"))->click();
    }

private:
    AppCore &m_core;
    MainWindow &m_window;
    QString m_tag;
    double m_first = 0;
    double m_last = 0;
};

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // A profile of its own: no remembered window, chats or model settings of the user's.
    QTemporaryDir profile;
    qputenv("XDG_CONFIG_HOME", (profile.path() + "/config").toUtf8());
    qputenv("XDG_DATA_HOME", (profile.path() + "/data").toUtf8());
    QApplication app(argc, argv);
    app.setApplicationName(QStringLiteral("Shoehorn"));
    app.setOrganizationName(QStringLiteral("Shoehorn"));
    Options o;
    if (!parse(app.arguments(), o)) {
        std::fprintf(stderr, "usage: shoehorn-concurrency-window MODEL [-c N] [-t N] [--api-slots N] [--spec-type T]\n");
        return 2;
    }
    ModelSettings s;
    s.load.gpuLayers = 0;
    s.context.contextSize = o.context;
    s.context.threads = o.threads;
    if (!o.specType.isEmpty()) { // the per-model choice, as the Speculative row stores it
        s.context.speculation.types = o.specType.toStdString();
        s.load.mtpLayers = s.context.speculation.mtp();
    }
    ModelSettingsStore::save(o.model, s);
    ApiConfig api;
    api.port = 0;
    api.noKey = true;
    api.parallel = o.apiSlots;
    if (const shoehorn::Error e = ApiController::saveConfig(api)) {
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        return 1;
    }

    AppCore core;
    core.api()->setConfig(api);
    MainWindow window(core.windowParts());
    window.setErrorPresenter([](const QString &title, const QString &text) {
        std::fprintf(stderr, "error: %s: %s\n", qPrintable(title), qPrintable(text));
    });
    window.resize(1400, 860);
    window.show();
    Driver driver(core, window);
    QObject::connect(core.model(), &LoadedModel::modelLoaded, &app, [&core] { core.api()->start(); });
    QObject::connect(core.model(), &LoadedModel::loadFailed, &app, [](const shoehorn::Error &e) {
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        qApp->exit(1);
    });
    QObject::connect(core.api(), &ApiController::stateChanged, &app, [&core](ApiController::State st) {
        if (st == ApiController::State::On)
            say(QStringLiteral("listening on ") + core.api()->baseUrl());
    });
    QObject::connect(core.api(), &ApiController::failed, &app, [](const shoehorn::Error &e, int) {
        std::fprintf(stderr, "error: the API did not start: %s\n", e.detail.c_str());
        qApp->exit(1);
    });
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    QObject::connect(&input, &QSocketNotifier::activated, &app, [&driver, &input] {
        std::string line;
        if (!std::getline(std::cin, line)) {
            input.setEnabled(false);
            qApp->quit();
            return;
        }
        driver.command(line);
    });
    window.openModel(o.model);
    return app.exec();
}
