#include "appsettings.h"

#include "samplingpresets.h"

#include <QCryptographicHash>
#include <QSettings>
#include <QThreadPool>

namespace AppSettings {

namespace {
const QString kLanguage = QStringLiteral("language");
const QString kStartupModel = QStringLiteral("startup/model");
const QString kRecent = QStringLiteral("models/recent");
const QString kFolders = QStringLiteral("models/folders");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kWindowState = QStringLiteral("window/state");
const QString kProfiles = QStringLiteral("profiles/custom");
const QString kPrompts = QStringLiteral("systemPrompts");
} // namespace

QString hashedKey(const QString &group, const QString &text, int length)
{
    const QByteArray h = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1).toHex().left(length);
    return group + QLatin1Char('/') + QString::fromLatin1(h);
}

ModelSettings defaults()
{
    ModelSettings s;
    s.load.gpuLayers = -1; // llama.cpp's default: every layer the GPUs hold
    s.context.contextSize = kFirstOpenContext;
    // The model cards' instruct preset: a calmer start than llama.cpp's own defaults.
    for (const auto &p : SamplingPresets::fixedPresets())
        if (p.id == SamplingPresets::Id::InstructGeneral)
            s.generation.sampling = p.sampling;
    return s;
}

ModelSettings forModel(const QString &path, const ModelSettings &current, const QString &currentPath,
                       uint32_t trainedContext, bool *remembered)
{
    const std::optional<ModelSettings> stored = ModelSettingsStore::load(path, current);
    if (remembered)
        *remembered = stored.has_value();
    if (stored)
        return *stored;
    ModelSettings s = current;
    if (!currentPath.isEmpty() && path != currentPath) {
        // Another model's placement and context do not carry over.
        s.context.contextSize = kFirstOpenContext;
        s.load.cpuMoeLayers = 0;
    }
    if (trainedContext > 0 && (s.context.contextSize == 0 || s.context.contextSize > trainedContext))
        s.context.contextSize = trainedContext; // past it a model only produces garbage
    return s;
}

QString systemPrompt(const QString &modelPath)
{
    waitForWrites();
    return QSettings().value(hashedKey(kPrompts, modelPath, 16)).toString();
}

// Each write below rewrites the settings file (2-8 ms, once 52 ms measured): on the writer's
// thread, in order; the reads above and below wait for the writes made before them.
void setSystemPrompt(const QString &modelPath, const QString &prompt)
{
    writeInBackground([key = hashedKey(kPrompts, modelPath, 16), prompt] {
        if (prompt.isEmpty())
            QSettings().remove(key);
        else
            QSettings().setValue(key, prompt);
    });
}

QString language()
{
    waitForWrites();
    return QSettings().value(kLanguage).toString();
}
void setLanguage(const QString &code)
{
    writeInBackground([code] { QSettings().setValue(kLanguage, code); });
}
QString startupModel()
{
    waitForWrites();
    return QSettings().value(kStartupModel).toString();
}
void setStartupModel(const QString &path)
{
    writeInBackground([path] { QSettings().setValue(kStartupModel, path); });
}
namespace {
QThreadPool &writer()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // never destroyed: waitForWrites() ends the writes in time
        p->setMaxThreadCount(1);   // one thread: the writes land in the order they were made
        return p;
    }();
    return *pool;
}
} // namespace

void writeInBackground(std::function<void()> write)
{
    writer().start(std::move(write));
}

void waitForWrites()
{
    writer().waitForDone();
}

QStringList recentModels()
{
    waitForWrites();
    return QSettings().value(kRecent).toStringList();
}

QStringList modelFolders()
{
    waitForWrites();
    return QSettings().value(kFolders).toStringList();
}

void setModelLibrary(const QStringList &recent, const QStringList &folders)
{
    writeInBackground([recent, folders] {
        QSettings s;
        s.setValue(kRecent, recent);
        s.setValue(kFolders, folders);
    });
}

QByteArray windowGeometry()
{
    waitForWrites();
    return QSettings().value(kGeometry).toByteArray();
}
QByteArray windowState()
{
    waitForWrites();
    return QSettings().value(kWindowState).toByteArray();
}

void setWindow(const QByteArray &geometry, const QByteArray &state)
{
    writeInBackground([geometry, state] {
        QSettings s;
        s.setValue(kGeometry, geometry);
        s.setValue(kWindowState, state);
    });
}

QByteArray customProfiles()
{
    waitForWrites();
    return QSettings().value(kProfiles).toByteArray();
}
void setCustomProfiles(const QByteArray &json)
{
    writeInBackground([json] { QSettings().setValue(kProfiles, json); });
}

} // namespace AppSettings
