#include "offloadtexts.h"

#include "units.h"

#include <QFileInfo>
#include <QStringList>

using namespace shoehorn;

QString OffloadTexts::hardware(const HardwareInfo &hw, quint64 heldRam)
{
    QStringList lines;
    for (const auto &g : hw.gpus)
        lines << tr("%1: %2 free of %3")
                     .arg(QString::fromStdString(g.description), bytesText(g.freeBytes), bytesText(g.totalBytes));
    lines << tr("RAM: %1 available of %2 · %n physical core(s)", "", hw.physicalCores)
                 .arg(bytesText(hw.ramAvailableBytes), bytesText(hw.ramTotalBytes));
    if (heldRam)
        lines << tr("The loaded model holds %1 more; plans count it as free.").arg(bytesText(heldRam));
    if (hw.gpus.empty())
        lines << tr("No GPU: this build of Shoehorn is for the CPU only (build with SHOEHORN_CUDA=ON for NVIDIA GPUs), "
                    "or no supported GPU was found.");
    return lines.join(QStringLiteral("<br>"));
}

QString OffloadTexts::ramParts(const OffloadController::RamParts &r)
{
    QString text = tr("RAM: %1 only Shoehorn holds (KV cache, compute, weights read or repacked into memory) · "
                      "%2 model file pages kept by mmap (the system can reclaim them).")
                       .arg(bytesText(r.plannedAnonymous), bytesText(r.plannedFile));
    if (!r.loaded)
        return text;
    const double diff = r.plannedAnonymous ? 100.0 * (double(r.actualAnonymous) - double(r.plannedAnonymous)) /
                                                 double(r.plannedAnonymous)
                                           : 0.0;
    // Like with like: the process's own growth since just before the load, per part.
    return text + QLatin1Char('\n') +
           tr("Loaded: Shoehorn holds %1 for it (plan %2, %3%); %4 of the model file is in memory so far "
              "(plan up to %5).")
               .arg(bytesText(r.actualAnonymous), bytesText(r.plannedAnonymous))
               .arg(diff, 0, 'f', 1)
               .arg(bytesText(r.actualFile), bytesText(r.plannedFile));
}

QString OffloadTexts::exactCheck(const std::optional<ExactCheck> &c, bool running, const MemoryPlan &planned)
{
    if (!c)
        return running ? tr("Checking with llama.cpp's dry run…") : QString();
    if (!c->ok)
        return tr("llama.cpp's dry run failed: %1").arg(QString::fromStdString(c->error.detail));
    QStringList parts;
    auto line = [&](const QString &name, quint64 exact, quint64 estimate) {
        const double diff = exact ? 100.0 * (double(estimate) - double(exact)) / double(exact) : 0.0;
        parts << tr("%1: %2 (plan %3, %4%)").arg(name, bytesText(exact), bytesText(estimate)).arg(diff, 0, 'f', 1);
    };
    auto core = [](const MemoryUse &u) { return u.weights() + u.kv() + u.compute; };
    for (size_t i = 0; i < c->plan.gpus.size() && i < planned.gpus.size(); ++i)
        line(QString::fromStdString(c->plan.gpus[i].name), core(c->plan.gpus[i].use), core(planned.gpus[i].use));
    line(tr("RAM"), core(c->plan.ram.use), core(planned.ram.use));
    return tr("llama.cpp's dry run — %1").arg(parts.join(QStringLiteral(" · ")));
}

QString OffloadTexts::images(const OffloadController::Images &i, uint32_t contextSize)
{
    if (i.projector.isEmpty())
        return {};
    const QString where = i.onGpu ? tr("on the GPU") : tr("on the CPU");
    QString text = tr("Images: %1 (%2, %3).").arg(QFileInfo(i.projector).fileName(), i.precision, where);
    if (i.tokens1024 > 0 && contextSize > 0)
        text += QLatin1Char(' ') + tr("A 1024×1024 picture takes %1 tokens, %2% of the context.")
                                       .arg(i.tokens1024)
                                       .arg(100.0 * i.tokens1024 / contextSize, 0, 'f', 0);
    return text;
}
