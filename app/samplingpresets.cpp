#include "samplingpresets.h"

#include <cmath>

namespace SamplingPresets {

namespace {
shoehorn::SamplingSettings make(float temp, float topP, int topK, float minP, float presence)
{
    shoehorn::SamplingSettings s;
    s.temperature = temp;
    s.topP = topP;
    s.topK = topK;
    s.minP = minP;
    s.presencePenalty = presence;
    s.repeatPenalty = 1.0f;
    return s;
}

bool near(float a, float b)
{
    return std::fabs(a - b) < 1e-3f;
}
} // namespace

QList<Preset> fixedPresets()
{
    return {
        {Id::ThinkingGeneral, QStringLiteral("thinking-general"), make(1.0f, 0.95f, 20, 0.0f, 1.5f)},
        {Id::ThinkingCoding, QStringLiteral("thinking-coding"), make(0.6f, 0.95f, 20, 0.0f, 0.0f)},
        {Id::InstructGeneral, QStringLiteral("instruct-general"), make(0.7f, 0.8f, 20, 0.0f, 1.5f)},
        {Id::InstructReasoning, QStringLiteral("instruct-reasoning"), make(1.0f, 0.95f, 20, 0.0f, 1.5f)},
    };
}

bool modelDefaults(double temp, double topP, double minP, int topK, shoehorn::SamplingSettings &base)
{
    if (temp < 0 && topP < 0 && minP < 0 && topK < 0)
        return false;
    if (temp >= 0)
        base.temperature = float(temp);
    if (topP >= 0)
        base.topP = float(topP);
    if (minP >= 0)
        base.minP = float(minP);
    if (topK >= 0)
        base.topK = topK;
    return true;
}

Id match(const shoehorn::SamplingSettings &s, bool thinking)
{
    for (const Preset &p : fixedPresets()) {
        if (p.id == (thinking ? Id::InstructReasoning : Id::ThinkingGeneral))
            continue;
        const auto &v = p.sampling;
        if (near(v.temperature, s.temperature) && near(v.topP, s.topP) && v.topK == s.topK && near(v.minP, s.minP) &&
            near(v.presencePenalty, s.presencePenalty) && near(s.repeatPenalty, 1.0f))
            return p.id;
    }
    return Id::Custom;
}

QString keyOf(Id id)
{
    for (const Preset &p : fixedPresets())
        if (p.id == id)
            return p.key;
    return id == Id::ModelDefaults ? QStringLiteral("model") : QStringLiteral("custom");
}

} // namespace SamplingPresets
