#include "tuningstore.h"

#include "appsettings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSysInfo>

using namespace shoehorn;

namespace {

QString key(const QString &path, const QString &machine)
{
    return AppSettings::hashedKey(QStringLiteral("tuning"), path + QLatin1Char('|') + machine);
}

QJsonObject measurementJson(const TuneMeasurement &m)
{
    const auto &s = m.candidate.settings;
    return {{"label", QString::fromStdString(m.candidate.label)},
            {"lowerQuality", m.candidate.lowerQuality},
            {"ok", m.ok},
            {"error", QString::fromStdString(m.error.detail)},
            {"errorCode", QString::fromLatin1(errorCodeName(m.error.code))},
            {"pp", m.prompt.mean},
            {"ppSd", m.prompt.stddev},
            {"tg", m.generate.mean},
            {"tgSd", m.generate.stddev},
            {"ngl", s.load.gpuLayers},
            {"ncmoe", s.load.cpuMoeLayers},
            {"backend", QString::fromStdString(s.load.backend)},
            {"ctx", qint64(s.context.contextSize)},
            {"threads", s.context.threads},
            {"ubatch", qint64(s.context.ubatchSize)},
            {"fa", int(s.context.flashAttention)},
            {"ctk", QString::fromStdString(s.context.typeK)},
            {"ctv", QString::fromStdString(s.context.typeV)},
            {"chatPath", m.candidate.chatPath},
            {"specType", QString::fromStdString(s.context.speculation.types)},
            {"specDraftMax", s.context.speculation.draftMax},
            {"specDraftModel", QString::fromStdString(s.context.speculation.draftModel)}};
}

TuneMeasurement measurementFrom(const QJsonObject &o)
{
    TuneMeasurement m;
    m.candidate.label = o.value("label").toString().toStdString();
    m.candidate.lowerQuality = o.value("lowerQuality").toBool();
    m.ok = o.value("ok").toBool();
    m.error.detail = o.value("error").toString().toStdString();
    // Reports stored before the code was: a failed trial said only its words.
    m.error.code = errorCodeFromName(o.value("errorCode").toString().toStdString())
                       .value_or(m.error.detail.empty() ? ErrorCode::None : ErrorCode::LoadFailed);
    m.prompt = {o.value("pp").toDouble(), o.value("ppSd").toDouble(), 1};
    m.generate = {o.value("tg").toDouble(), o.value("tgSd").toDouble(), 1};
    auto &s = m.candidate.settings;
    s.load.gpuLayers = o.value("ngl").toInt();
    s.load.cpuMoeLayers = o.value("ncmoe").toInt();
    s.load.backend = o.value("backend").toString().toStdString();
    s.context.contextSize = uint32_t(o.value("ctx").toInteger());
    s.context.threads = o.value("threads").toInt();
    s.context.ubatchSize = uint32_t(o.value("ubatch").toInteger());
    s.context.flashAttention = FlashAttention(o.value("fa").toInt());
    s.context.typeK = o.value("ctk").toString().toStdString();
    s.context.typeV = o.value("ctv").toString().toStdString();
    m.candidate.chatPath = o.value("chatPath").toBool();
    s.context.speculation.types = o.value("specType").toString(QStringLiteral("none")).toStdString();
    s.context.speculation.draftMax = o.value("specDraftMax").toInt();
    s.context.speculation.draftModel = o.value("specDraftModel").toString().toStdString();
    s.load.mtpLayers = s.context.speculation.mtp();
    return m;
}

} // namespace

QString TuningStore::machineId(const HardwareInfo &hw)
{
    QStringList parts{QSysInfo::machineHostName()};
    for (const auto &g : hw.gpus)
        parts << QString::fromStdString(g.description) + QStringLiteral(":%1").arg(g.totalBytes >> 20);
    parts << QStringLiteral("ram:%1").arg(hw.ramTotalBytes >> 30) << QStringLiteral("cores:%1").arg(hw.physicalCores);
    return parts.join(QLatin1Char('/'));
}

void TuningStore::save(const QString &path, const QString &machine, const TuneReport &r)
{
    QJsonArray ms, story;
    for (const auto &m : r.result.measurements)
        ms.append(measurementJson(m));
    for (const auto &s : r.story) {
        QJsonObject o = measurementJson(s.measurement);
        o["step"] = QString::fromStdString(s.name);
        o["speedup"] = s.speedup;
        story.append(o);
    }
    const QJsonObject doc{{"measurements", ms}, {"best", r.result.best}, {"story", story},
                          {"when", r.when.toString(Qt::ISODate)}, {"machine", machine}};
    // A report is kilobytes of JSON, and the write rewrites the settings file: not on this thread.
    AppSettings::setValueInBackground(key(path, machine), QJsonDocument(doc).toJson(QJsonDocument::Compact));
}

std::optional<TuneReport> TuningStore::load(const QString &path, const QString &machine)
{
    const QJsonObject doc = QJsonDocument::fromJson(AppSettings::value(key(path, machine)).toByteArray()).object();
    if (doc.isEmpty())
        return std::nullopt;
    TuneReport out;
    for (const auto &v : doc.value("measurements").toArray())
        out.result.measurements.push_back(measurementFrom(v.toObject()));
    out.result.best = doc.value("best").toInt(-1);
    for (const auto &v : doc.value("story").toArray()) {
        TuneStep s;
        s.measurement = measurementFrom(v.toObject());
        s.name = v.toObject().value("step").toString().toStdString();
        s.speedup = v.toObject().value("speedup").toDouble(1.0);
        out.story.push_back(s);
    }
    out.when = QDateTime::fromString(doc.value("when").toString(), Qt::ISODate);
    out.machine = doc.value("machine").toString(machine);
    if (out.result.measurements.empty())
        return std::nullopt;
    return out;
}

std::string TuningStore::label(const LoadSettings &load, const ContextSettings &context)
{
    // Speculation is measured on the chat path (AutoTuner's speculation axis): its rows say so.
    return AutoTuner::label(PlanSettings{load, context, 1}) + (context.speculation.on() ? " (chat path)" : "");
}
