#pragma once

#include "settings.h"

#include <QList>
#include <QString>

// The sampling values model authors recommend (Qwen3 model cards), as named presets.
namespace SamplingPresets {

enum class Id { ThinkingGeneral, ThinkingCoding, InstructGeneral, InstructReasoning, ModelDefaults, Custom };

struct Preset {
    Id id;
    QString key; // stable, stored in settings
    shoehorn::SamplingSettings sampling;
};

// The four fixed presets, in menu order.
QList<Preset> fixedPresets();
// The values a GGUF carries in general.sampling.*, over `base`; false when it carries none.
bool modelDefaults(double temp, double topP, double minP, int topK, shoehorn::SamplingSettings &base);
// The fixed preset these values are, or Custom. Thinking-general and instruct-reasoning share
// their values; `thinking` (the chat's enable-thinking switch) tells them apart.
Id match(const shoehorn::SamplingSettings &s, bool thinking = true);
QString keyOf(Id id);

} // namespace SamplingPresets
