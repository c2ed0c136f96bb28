#pragma once

#include "autotune.h"

#include <QDateTime>
#include <QString>

#include <optional>

// The outcome of an auto-tune run, as shown and stored.
struct TuneReport {
    shoehorn::TuneResult result;
    std::vector<shoehorn::TuneStep> story;
    QDateTime when;
    QString machine; // TuningStore::machineId of the machine it was measured on
    bool empty() const { return result.measurements.empty(); }
};
Q_DECLARE_METATYPE(TuneReport)

// Tuning results per model file and machine (a different GPU or RAM size tunes differently).
class TuningStore
{
public:
    static QString machineId(const shoehorn::HardwareInfo &hw);
    static void save(const QString &modelPath, const QString &machine, const TuneReport &report);
    // The stored report, or nothing when this model was not tuned on that machine.
    static std::optional<TuneReport> load(const QString &modelPath, const QString &machine);
    // The label auto-tune gives a configuration (TuneCandidate::label) for these settings.
    static std::string label(const shoehorn::LoadSettings &load, const shoehorn::ContextSettings &context);
};
