#pragma once

#include "modelsettings.h"

#include "error.h"

#include <QByteArray>
#include <QFuture>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <functional>

// Every key Shoehorn keeps in QSettings, and its default, in one place. Per-model values are
// keyed by a hash of the model's path (paths hold characters QSettings keys cannot).
namespace AppSettings {

// "group/<sha1 of text>"; `length` hex digits (older keys used 16).
QString hashedKey(const QString &group, const QString &text, int length = 40);

// A QSettings write syncs the whole file to disk: 2-8 ms measured here, once 52 ms. The writes
// that follow a load or a settings edit (per-model settings, the recent list) run on one
// background thread, in order; the reads of the same keys wait for writes still pending, and
// AppCore waits for them before the process ends. After a load they also wait kWriteAfterLoadMs,
// past the window's first paint of the loaded model.
void writeInBackground(std::function<void()> write);
void waitForWrites();
// One key written on that thread; value() gives it at once, without waiting (it is kept in
// memory until it is written). An invalid value removes the key.
void setValueInBackground(const QString &key, const QVariant &value);
QVariant value(const QString &key, const QVariant &fallback = {});
// A write whose outcome the caller reports (a file of its own): on the same thread, in order.
QFuture<shoehorn::Error> checkedWriteInBackground(std::function<shoehorn::Error()> write);
constexpr int kWriteAfterLoadMs = 100;

// What a model starts with before anything was remembered for it.
constexpr uint32_t kFirstOpenContext = 8192;
ModelSettings defaults();
// The settings for opening `path`: what was remembered for it, else `current`. When `current`
// belongs to another model (`currentPath`), the first-open rule applies: an 8k context and no
// experts pinned to the CPU. A context past the trained length (when known) is capped there.
ModelSettings forModel(const QString &path, const ModelSettings &current, const QString &currentPath,
                       uint32_t trainedContext = 0, bool *remembered = nullptr);

// A model's own system prompt for new chats; empty clears it.
QString systemPrompt(const QString &modelPath);
void setSystemPrompt(const QString &modelPath, const QString &prompt);

QString language(); // "", "en", "zh_CN"
void setLanguage(const QString &code);
QString startupModel(); // a llama-server preset marked load-on-startup
void setStartupModel(const QString &path);
QStringList recentModels();
QStringList modelFolders();
void setModelLibrary(const QStringList &recent, const QStringList &folders);
QByteArray windowGeometry();
QByteArray windowState();
void setWindow(const QByteArray &geometry, const QByteArray &state);
QByteArray customProfiles(); // JSON (ProfileStore)
void setCustomProfiles(const QByteArray &json);

} // namespace AppSettings
