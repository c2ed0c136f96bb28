#include "servercommand.h"

#include "visioncontroller.h"

#include <QRegularExpression>
#include <QStringList>

using namespace shoehorn;

namespace {
// A shell word for any path: as it is when it holds only safe characters, else in single
// quotes, where nothing is special but the quote itself ('\'' closes, escapes and reopens).
QString shellQuoted(const QString &path)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_./+:,@%=-]+$"));
    if (safe.match(path).hasMatch())
        return path;
    QString q = path;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}
} // namespace

QString llamaServerCommand(const QString &modelPath, const ModelSettings &s, const QString &projector)
{
    QStringList a{QStringLiteral("llama-server"), QStringLiteral("-m"), shellQuoted(modelPath)};
    a << QStringLiteral("-ngl") << (s.load.gpuLayers < 0 ? QStringLiteral("99") : QString::number(s.load.gpuLayers));
    if (s.load.cpuMoeLayers > 0)
        a << QStringLiteral("--n-cpu-moe") << QString::number(s.load.cpuMoeLayers);
    if (!s.load.tensorSplit.empty())
        a << QStringLiteral("-ts") << QString::fromStdString(tensorSplitText(s.load.tensorSplit));
    if (!s.load.devices.empty())
        a << QStringLiteral("--device") << QString::fromStdString(deviceListText(s.load.devices));
    a << QStringLiteral("-c") << QString::number(s.context.contextSize);
    a << QStringLiteral("-ctk") << QString::fromStdString(s.context.typeK) << QStringLiteral("-ctv")
      << QString::fromStdString(s.context.typeV);
    a << QStringLiteral("-fa") << QString::fromLatin1(flashAttentionName(s.context.flashAttention));
    if (s.context.threads > 0)
        a << QStringLiteral("-t") << QString::number(s.context.threads);
    a << QStringLiteral("-b") << QString::number(s.context.batchSize) << QStringLiteral("-ub")
      << QString::number(s.context.ubatchSize);
    const SpeculationSettings &spec = s.context.speculation;
    if (spec.on()) // given explicitly: llama-server does not speculate on -md alone
        a << QStringLiteral("--spec-type") << QString::fromStdString(spec.running());
    if (!spec.draftModel.empty())
        a << QStringLiteral("-md") << shellQuoted(QString::fromStdString(spec.draftModel));
    if (s.load.loadMode == LoadMode::NoMmap)
        a << QStringLiteral("--no-mmap");
    else if (s.load.loadMode == LoadMode::Mlock)
        a << QStringLiteral("--mlock");
    const auto &sm = s.generation.sampling;
    a << QStringLiteral("--temp") << QString::number(double(sm.temperature)) << QStringLiteral("--top-k")
      << QString::number(sm.topK) << QStringLiteral("--top-p") << QString::number(double(sm.topP))
      << QStringLiteral("--min-p") << QString::number(double(sm.minP));
    if (sm.presencePenalty != 0.0f)
        a << QStringLiteral("--presence-penalty") << QString::number(double(sm.presencePenalty));
    if (!projector.isEmpty()) {
        a << QStringLiteral("--mmproj") << shellQuoted(projector);
        if (!s.projectorOffload)
            a << QStringLiteral("--no-mmproj-offload");
    }
    return a.join(QLatin1Char(' '));
}
