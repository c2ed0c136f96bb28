#include "appsettings.h"

#include "samplingpresets.h"

#include <QCryptographicHash>
#include <QHash>
#include <QSettings>
#include <QCoreApplication>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <mutex>

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
    return value(hashedKey(kPrompts, modelPath, 16)).toString();
}

// Each write below rewrites the settings file (2-8 ms, once 52 ms measured): on the writer's
// thread, in order; the reads above and below wait for the writes made before them.
void setSystemPrompt(const QString &modelPath, const QString &prompt)
{
    setValueInBackground(hashedKey(kPrompts, modelPath, 16), prompt.isEmpty() ? QVariant() : QVariant(prompt));
}

QString language() { return value(kLanguage).toString(); }
void setLanguage(const QString &code) { setValueInBackground(kLanguage, code); }
QString startupModel() { return value(kStartupModel).toString(); }
void setStartupModel(const QString &path) { setValueInBackground(kStartupModel, path); }
namespace {
QThreadPool &writer()
{
    static QThreadPool *pool = [] {
        auto *p = new QThreadPool; // never destroyed: waitForWrites() ends the writes in time
        p->setMaxThreadCount(1);   // one thread: the writes land in the order they were made
        // Also where no AppCore waits for them (a window tested alone): a write still running
        // when the process exits made a QSettings in the middle of the exit handlers (a crash in
        // tst_remotemachinesdialog, heap corruption at exit).
        qAddPostRoutine([] { writer().waitForDone(); });
        return p;
    }();
    return *pool;
}
} // namespace

void writeInBackground(std::function<void()> write)
{
    writer().start(std::move(write));
}

QFuture<shoehorn::Error> checkedWriteInBackground(std::function<shoehorn::Error()> write)
{
    return QtConcurrent::run(&writer(), std::move(write));
}

namespace {
std::mutex g_pendingLock;
QHash<QString, QPair<quint64, QVariant>> g_pending; // key: (which write, value) not yet written
quint64 g_writes = 0;
} // namespace

void setValueInBackground(const QString &key, const QVariant &value)
{
    quint64 n = 0;
    {
        const std::lock_guard lock(g_pendingLock);
        n = ++g_writes;
        g_pending.insert(key, {n, value});
    }
    writeInBackground([key, value, n] {
        {
            QSettings s; // synced when it goes: then every QSettings of the process reads it
            if (value.isValid())
                s.setValue(key, value);
            else
                s.remove(key);
        }
        const std::lock_guard lock(g_pendingLock);
        if (const auto it = g_pending.constFind(key); it != g_pending.cend() && it->first == n)
            g_pending.erase(it);
    });
}

QVariant value(const QString &key, const QVariant &fallback)
{
    {
        const std::lock_guard lock(g_pendingLock);
        if (const auto it = g_pending.constFind(key); it != g_pending.cend())
            return it->second.isValid() ? it->second : fallback;
    }
    return QSettings().value(key, fallback);
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

QByteArray windowGeometry() { return value(kGeometry).toByteArray(); }
QByteArray windowState() { return value(kWindowState).toByteArray(); }

void setWindow(const QByteArray &geometry, const QByteArray &state)
{
    setValueInBackground(kGeometry, geometry);
    setValueInBackground(kWindowState, state);
}

QByteArray customProfiles() { return value(kProfiles).toByteArray(); }
void setCustomProfiles(const QByteArray &json) { setValueInBackground(kProfiles, json); }

} // namespace AppSettings
