#include "modelsettings.h"

#include "appsettings.h"

#include "validate.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

using namespace shoehorn;

bool ModelSettings::operator==(const ModelSettings &o) const
{
    return load == o.load && context == o.context && generation.sampling == o.generation.sampling &&
           generation.maxTokens == o.generation.maxTokens && generation.enableThinking == o.generation.enableThinking &&
           generation.templateKwargs == o.generation.templateKwargs && locks == o.locks &&
           projector == o.projector && projectorOffload == o.projectorOffload && speculationAuto == o.speculationAuto;
}

namespace {

QString keyFor(const QString &path)
{
    return AppSettings::hashedKey(QStringLiteral("modelSettings"), path);
}

QJsonObject toJson(const ModelSettings &s)
{
    QJsonObject j{
        {"gpuLayers", s.load.gpuLayers},
        {"cpuMoeLayers", s.load.cpuMoeLayers},
        {"mainGpu", s.load.mainGpu},
        {"tensorSplit", QString::fromStdString(tensorSplitText(s.load.tensorSplit))},
        {"devices", QString::fromStdString(deviceListText(s.load.devices))},
        {"backend", QString::fromStdString(s.load.backend)},
        {"loadMode", QString::fromLatin1(loadModeName(s.load.loadMode))},
        {"contextSize", qint64(s.context.contextSize)},
        {"batchSize", qint64(s.context.batchSize)},
        {"ubatchSize", qint64(s.context.ubatchSize)},
        {"typeK", QString::fromStdString(s.context.typeK)},
        {"typeV", QString::fromStdString(s.context.typeV)},
        {"flashAttention", QString::fromLatin1(flashAttentionName(s.context.flashAttention))},
        {"threads", s.context.threads},
        {"threadsBatch", s.context.threadsBatch},
        {"speculation", QString::fromStdString(s.context.speculation.types)},
        {"draftModel", QString::fromStdString(s.context.speculation.draftModel)},
        {"draftMax", s.context.speculation.draftMax},
        {"speculationAuto", s.speculationAuto},
        {"lockGpuLayers", s.locks.gpuLayers},
        {"lockCpuMoeLayers", s.locks.cpuMoeLayers},
        {"lockContextSize", s.locks.contextSize},
        {"lockKvType", s.locks.kvType},
        {"projector", s.projector},
        {"projectorOffload", s.projectorOffload},
    };
    const QJsonObject g = generationToJson(s.generation);
    for (auto it = g.begin(); it != g.end(); ++it)
        j.insert(it.key(), it.value());
    return j;
}

void fromJson(const QJsonObject &j, ModelSettings &s)
{
    s.load.gpuLayers = j.value("gpuLayers").toInt(s.load.gpuLayers);
    s.load.cpuMoeLayers = j.value("cpuMoeLayers").toInt(s.load.cpuMoeLayers);
    s.load.mainGpu = j.value("mainGpu").toInt(s.load.mainGpu);
    // Auto-fit's split over the devices of that time; a bad or empty one: by free memory.
    if (!parseTensorSplit(j.value("tensorSplit").toString().toStdString(), s.load.tensorSplit))
        s.load.tensorSplit.clear();
    if (!parseDeviceList(j.value("devices").toString().toStdString(), s.load.devices))
        s.load.devices.clear();
    s.load.backend = j.value("backend").toString(QString::fromStdString(s.load.backend)).toStdString();
    parseLoadMode(j.value("loadMode").toString().toStdString(), s.load.loadMode);
    // A size that is not a count (negative, or past 32 bits) keeps what was there.
    auto size = [&j](const char *key, uint32_t &out) {
        const qint64 v = j.value(QLatin1String(key)).toInteger(-1);
        if (v >= 0 && v <= qint64(UINT32_MAX))
            out = uint32_t(v);
    };
    size("contextSize", s.context.contextSize);
    size("batchSize", s.context.batchSize);
    size("ubatchSize", s.context.ubatchSize);
    const std::string k = j.value("typeK").toString().toStdString();
    const std::string v = j.value("typeV").toString().toStdString();
    if (isKvCacheType(k))
        s.context.typeK = k;
    if (isKvCacheType(v))
        s.context.typeV = v;
    parseFlashAttention(j.value("flashAttention").toString().toStdString(), s.context.flashAttention);
    s.context.threads = j.value("threads").toInt(s.context.threads);
    s.context.threadsBatch = j.value("threadsBatch").toInt(s.context.threadsBatch);
    // Speculation as stored; a name this build does not know (an older or newer llama.cpp): off.
    SpeculationSettings spec = s.context.speculation;
    spec.types = j.value("speculation").toString(QString::fromStdString(spec.types)).toStdString();
    spec.draftModel = j.value("draftModel").toString(QString::fromStdString(spec.draftModel)).toStdString();
    spec.draftMax = j.value("draftMax").toInt(spec.draftMax);
    s.speculationAuto = j.value("speculationAuto").toBool(s.speculationAuto);
    s.context.speculation = validate(spec) ? SpeculationSettings() : spec;
    s.load.mtpLayers = s.context.speculation.mtp();
    s.projector = j.value("projector").toString(s.projector);
    s.projectorOffload = j.value("projectorOffload").toBool(s.projectorOffload);
    generationFromJson(j, s.generation);
    s.locks.gpuLayers = j.value("lockGpuLayers").toBool();
    s.locks.cpuMoeLayers = j.value("lockCpuMoeLayers").toBool();
    s.locks.contextSize = j.value("lockContextSize").toBool();
    s.locks.kvType = j.value("lockKvType").toBool();
}

} // namespace

QJsonObject generationToJson(const GenerationOptions &g)
{
    QJsonObject kw;
    for (const auto &[k, v] : g.templateKwargs)
        kw[QString::fromStdString(k)] = QString::fromStdString(v);
    const auto &sm = g.sampling;
    return QJsonObject{
        {"temperature", double(sm.temperature)},
        {"topK", sm.topK},
        {"topP", double(sm.topP)},
        {"minP", double(sm.minP)},
        {"repeatPenalty", double(sm.repeatPenalty)},
        {"presencePenalty", double(sm.presencePenalty)},
        {"seed", qint64(sm.seed)},
        {"maxTokens", g.maxTokens},
        {"enableThinking", g.enableThinking},
        {"templateKwargs", kw},
    };
}

void generationFromJson(const QJsonObject &j, GenerationOptions &g)
{
    auto &sm = g.sampling;
    sm.temperature = float(j.value("temperature").toDouble(sm.temperature));
    sm.topK = j.value("topK").toInt(sm.topK);
    sm.topP = float(j.value("topP").toDouble(sm.topP));
    sm.minP = float(j.value("minP").toDouble(sm.minP));
    sm.repeatPenalty = float(j.value("repeatPenalty").toDouble(sm.repeatPenalty));
    sm.presencePenalty = float(j.value("presencePenalty").toDouble(sm.presencePenalty));
    sm.seed = uint32_t(j.value("seed").toInteger(sm.seed));
    g.maxTokens = j.value("maxTokens").toInt(g.maxTokens);
    g.enableThinking = j.value("enableThinking").toBool(g.enableThinking);
    // Stored arguments replace the current ones: another model's (e.g. reasoning_effort) must
    // not carry over. Without the key (older entries) the current ones stay.
    if (!j.value("templateKwargs").isObject())
        return;
    g.templateKwargs.clear();
    const QJsonObject kw = j.value("templateKwargs").toObject();
    for (auto it = kw.begin(); it != kw.end(); ++it)
        g.templateKwargs[it.key().toStdString()] = it.value().toString().toStdString();
}

std::optional<ModelSettings> ModelSettingsStore::load(const QString &path, const ModelSettings &base)
{
    AppSettings::waitForWrites();
    const QByteArray raw = QSettings().value(keyFor(path)).toByteArray();
    if (raw.isEmpty())
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(raw);
    if (!doc.isObject())
        return std::nullopt;
    ModelSettings out = base;
    fromJson(doc.object(), out);
    return out;
}

void ModelSettingsStore::save(const QString &path, const ModelSettings &s)
{
    AppSettings::writeInBackground([key = keyFor(path), json = QJsonDocument(toJson(s)).toJson(QJsonDocument::Compact)] {
        QSettings().setValue(key, json);
    });
}

void ModelSettingsStore::forget(const QString &path)
{
    AppSettings::writeInBackground([key = keyFor(path)] { QSettings().remove(key); });
}

QStringList ModelSettingsStore::importPresets(const PresetFile &file, const ModelSettings &base)
{
    QStringList written;
    for (const ModelPreset &p : file.models) {
        if (!p.model)
            continue;
        ModelSettings s = base;
        p.applyTo(s.load, s.context, s.generation);
        const QString path = QString::fromStdString(*p.model);
        save(path, s);
        written << path;
    }
    return written;
}
