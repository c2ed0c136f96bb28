#pragma once

#include "autofit.h"
#include "presetini.h"
#include "settings.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

// Everything Shoehorn remembers per model file.
struct ModelSettings {
    shoehorn::LoadSettings load;
    shoehorn::ContextSettings context;
    shoehorn::GenerationOptions generation;
    shoehorn::FitLocks locks;
    // The vision projector: empty means automatic (the best mmproj*.gguf beside the model),
    // kNoProjector means none, anything else is the file the user chose.
    QString projector;
    bool projectorOffload = true; // on the GPU as llama.cpp does (false: --no-mmproj-offload)
    // Speculative decoding "Auto": what auto-tune measured fastest for this model on this
    // machine (off until it has), in place of context.speculation (ChatController::speculationFor).
    bool speculationAuto = false;
    static inline const QString kNoProjector = QStringLiteral("none");
    bool operator==(const ModelSettings &o) const;
};

// The generation part (sampling, answer length, thinking, template arguments) as JSON: stored
// per model here and per chat by ChatStore. Reading keeps what the JSON does not name.
QJsonObject generationToJson(const shoehorn::GenerationOptions &g);
void generationFromJson(const QJsonObject &j, shoehorn::GenerationOptions &g);

// Per-model settings in QSettings, keyed by the model's path.
class ModelSettingsStore
{
public:
    // The stored settings over `base` (a key an older entry lacks keeps base's value), or
    // nothing when none are stored for the file.
    static std::optional<ModelSettings> load(const QString &modelPath, const ModelSettings &base = {});
    static void save(const QString &modelPath, const ModelSettings &settings);
    static void forget(const QString &modelPath);

    // Stores one ModelSettings per preset section that names a model file, starting from
    // `base`. Returns the model paths written.
    static QStringList importPresets(const shoehorn::PresetFile &file, const ModelSettings &base);
};
