#include "offloadtexts.h"

#include "fitexplanation.h"
#include "plantargets.h"
#include "units.h"

#include <QFileInfo>
#include <QStringList>

using namespace shoehorn;

PlanSummary::Texts OffloadTexts::summary(const OffloadController &c)
{
    const auto settings = c.planSettings();
    const PlanTarget target = c.targets()->current();
    const bool whatIf = !c.targets()->isThisComputer();
    const bool haveModel = c.info().has_value();
    const FitExplanation::Input in{&c.info(), c.modelPath(),       &c.lastFit(), &c.plan(),
                                   QString::fromStdString(target.name), &settings.context, whatIf};
    PlanSummary::Texts t;
    const auto verdict = FitExplanation::verdict(in);
    t.verdict = verdict.text;
    t.fits = verdict.fits;
    const auto exact = whatIf ? std::optional<ExactCheck>() : c.exactCheck();
    t.explanation = FitExplanation::text(in);
    // Sentences about this computer only when planning for it.
    t.machine = whatIf ? OffloadTexts::whatIf(target) : hardware(c.targets()->hardware(), c.targets()->heldRamBytes());
    if (!haveModel)
        return t;
    t.verified = verified({&c.plan(), c.measured(), &exact, c.exactCheckRunning(), whatIf});
    if (const QString pictures = images(c.images(), c.plan().contextSize); !pictures.isEmpty())
        t.explanation += QLatin1Char('\n') + pictures;
    t.ramParts = ramParts(c.ramParts());
    t.exact = exactCheck(exact, c.exactCheckRunning(), c.plan());
    return t;
}

QString OffloadTexts::hardware(const HardwareInfo &hw, quint64 heldRam)
{
    QStringList lines;
    for (const auto &g : hw.gpus) {
        QString line = tr("%1 · %2: %3 free of %4")
                           .arg(QString::fromStdString(g.name), QString::fromStdString(g.description),
                                bytesText(g.freeBytes), bytesText(g.totalBytes));
        for (const std::string &twin : g.sameCard)
            line += QLatin1Char(' ') + tr("(also seen as %1: the model uses one of the two, chosen under GPU backend)")
                                           .arg(QString::fromStdString(twin));
        lines << line;
    }
    lines << tr("RAM: %1 available of %2 · %n physical core(s)", "", hw.physicalCores)
                 .arg(bytesText(hw.ramAvailableBytes), bytesText(hw.ramTotalBytes));
    if (heldRam)
        lines << tr("The loaded model holds %1 more; plans count it as free.").arg(bytesText(heldRam));
    if (hw.gpus.empty())
        lines << noGpu(hw);
    else
        lines << cudaLeftToVulkan(hw); // which NVIDIA cards run on Vulkan instead, and why
    if (hw.backendModules && !hw.cpuVariant.empty())
        lines << tr("CPU kernels: %1 (the best of Shoehorn's builds that this CPU runs).")
                     .arg(QString::fromStdString(hw.cpuVariant));
    return lines.join(QLatin1Char('\n'));
}

// One sentence for a backend that gave no device, or an empty one when it is not news.
QString OffloadTexts::problemSentence(const BackendProblem &p)
{
    const QString backend = QString::fromStdString(p.backend);
    const QString detail = QString::fromStdString(p.detail);
    switch (p.kind) {
    case BackendProblem::Kind::NoModule:
        // A missing CUDA module is not news: it is for NVIDIA cards alone, which Vulkan runs too.
        if (p.backend == "Vulkan")
            return tr("Vulkan is not installed (the package shoehorn-backend-vulkan).");
        if (p.backend == "CPU")
            return tr("No CPU module was found in %1.").arg(detail);
        return {};
    case BackendProblem::Kind::ModuleFailed:
        return tr("The %1 module did not load: %2.").arg(backend, detail);
    case BackendProblem::Kind::NoDevice:
        return (p.backend == "Vulkan"
                    ? tr("Vulkan found no GPU: no Vulkan driver for it is installed (mesa-vulkan-drivers for AMD "
                         "and Intel, the NVIDIA driver for NVIDIA), or there is no GPU.")
                    : tr("%1 found no GPU (no driver for it, or no such GPU).").arg(backend));
    case BackendProblem::Kind::NoDriver:
        return tr("CUDA needs NVIDIA's driver (%1 is not installed); NVIDIA cards can run on Vulkan.").arg(detail);
    case BackendProblem::Kind::DriverTooOld:
        return tr("The NVIDIA driver runs CUDA %1; Shoehorn's CUDA module needs CUDA 13 (driver 580 or newer), "
                  "so NVIDIA cards run on Vulkan.")
                   .arg(detail);
    case BackendProblem::Kind::CardNotCovered:
        return tr("The CUDA module has no code for %1, so this card runs on Vulkan.").arg(detail);
    }
    return {};
}

QStringList OffloadTexts::cudaLeftToVulkan(const HardwareInfo &hw)
{
    QStringList out;
    for (const BackendProblem &p : hw.backendProblems)
        if (p.kind == BackendProblem::Kind::DriverTooOld || p.kind == BackendProblem::Kind::CardNotCovered)
            out << problemSentence(p);
    return out;
}

QString OffloadTexts::noGpu(const HardwareInfo &hw)
{
    if (!hw.backendModules)
        return tr("No GPU: this build of Shoehorn has no GPU backend (built for the CPU only).");
    QStringList why;
    for (const BackendProblem &p : hw.backendProblems)
        if (const QString w = problemSentence(p); !w.isEmpty())
            why << w;
    return tr("No GPU: Shoehorn runs on the CPU.") + (why.isEmpty() ? QString() : QLatin1Char(' ') + why.join(QLatin1Char(' ')));
}

QString OffloadTexts::ramParts(const OffloadController::RamParts &r)
{
    QString text = tr("RAM: %1 only Shoehorn holds (KV cache, compute, weights read or repacked into memory) · "
                      "%2 model file pages kept by mmap (the system can reclaim them).")
                       .arg(bytesText(r.plannedAnonymous), bytesText(r.plannedFile));
    if (!r.loaded)
        return text;
    // Not against the plan: pages count once touched, and the compute buffer is touched only as
    // far as the largest batch so far reached (a short prompt leaves most of it untouched). The
    // gauges compare what llama.cpp allocated.
    return text + QLatin1Char('\n') +
           tr("Resident now: Shoehorn holds %1 for it and %2 of the model file is in memory. Memory counts once "
              "used, so this stays under the plan until a long prompt has filled the compute buffer; the gauges "
              "compare what llama.cpp allocated.")
               .arg(bytesText(r.actualAnonymous), bytesText(r.actualFile));
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
    auto core = [](const MemoryUse &u) { return u.weights() + u.kv() + u.compute + u.draft(); };
    for (size_t i = 0; i < c->plan.gpus.size() && i < planned.gpus.size(); ++i)
        line(QString::fromStdString(c->plan.gpus[i].name), core(c->plan.gpus[i].use), core(planned.gpus[i].use));
    line(tr("RAM"), core(c->plan.ram.use), core(planned.ram.use));
    return tr("llama.cpp's dry run — %1").arg(parts.join(QStringLiteral(" · ")));
}

QString OffloadTexts::whatIf(const PlanTarget &t)
{
    const QString name = QString::fromStdString(t.name);
    if (t.gpus.empty())
        return tr("What-if machine %1: no GPU, %2 of RAM, %n core(s).", "", t.physicalCores)
            .arg(name, bytesText(t.ramTotalBytes));
    const GpuInfo &g = t.gpus.front();
    return tr("What-if machine %1: %2 with %3 (planned with %4 free), %5 of RAM (%6 free), %n core(s).", "",
              t.physicalCores)
        .arg(name, QString::fromStdString(g.description), bytesText(g.totalBytes), bytesText(g.freeBytes),
             bytesText(t.ramTotalBytes), bytesText(t.ramAvailableBytes));
}

QString OffloadTexts::percent(double value)
{
    const QString number = QString::number(std::abs(value), 'f', 1);
    return (value < -0.05 ? QStringLiteral("−") : QStringLiteral("+")) + number + QLatin1Char('%');
}

QString OffloadTexts::verified(const Verification &v)
{
    if (v.whatIf)
        return tr("What-if machine: planned, not measured.");
    // What llama.cpp allocates against what was planned, device by device: its buffers.
    const auto core = &OffloadTexts::llamaBuffers;
    auto diff = [](quint64 planned, quint64 actual) {
        return planned ? 100.0 * (double(actual) - double(planned)) / double(planned) : 0.0;
    };
    if (v.measured) {
        QStringList parts;
        for (size_t i = 0; i < v.measured->gpus.size() && i < v.plan->gpus.size(); ++i)
            parts << QStringLiteral("%1 %2").arg(QString::fromStdString(v.plan->gpus[i].name),
                                                 percent(diff(core(v.plan->gpus[i].use), v.measured->gpus[i].use.total())));
        parts << tr("RAM %1").arg(percent(diff(core(v.plan->ram.use), v.measured->ram.use.total())));
        return tr("Allocated at load: %1 against the plan.").arg(parts.join(QStringLiteral(", ")));
    }
    const auto &c = *v.exact;
    if (!c)
        return v.running ? tr("Checking with llama.cpp's dry run…") : QString();
    if (!c->ok)
        return tr("llama.cpp's dry run failed: %1").arg(QString::fromStdString(c->error.detail));
    auto exactCore = [](const MemoryUse &u) { return u.weights() + u.kv() + u.compute + u.draft(); };
    QStringList parts;
    for (size_t i = 0; i < c->plan.gpus.size() && i < v.plan->gpus.size(); ++i)
        parts << QStringLiteral("%1 %2").arg(QString::fromStdString(c->plan.gpus[i].name),
                                             percent(diff(exactCore(v.plan->gpus[i].use),
                                                          exactCore(c->plan.gpus[i].use))));
    parts << tr("RAM %1").arg(percent(diff(exactCore(v.plan->ram.use), exactCore(c->plan.ram.use))));
    return tr("llama.cpp's dry run: %1 against the plan.").arg(parts.join(QStringLiteral(", ")));
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
