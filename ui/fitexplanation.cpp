#include "fitexplanation.h"

#include "units.h"
#include "offloadcontroller.h"

using namespace shoehorn;

QString FitExplanation::unusableKv(const ModelInfo &info, const ContextSettings &c)
{
    const auto m = OffloadController::kvHeadMismatch(info, c);
    if (!m)
        return {};
    return tr("The %1 KV cache stores blocks of %2 values, so it needs a head size that is a multiple of %2; "
              "this model's head size is %3. Choose f16 for the KV cache.")
        .arg(m->type)
        .arg(m->block)
        .arg(m->headSize);
}

// Several devices (remote machines, GPUs): where the layers went, in llama.cpp's device order.
QString FitExplanation::splitText(const MemoryPlan &plan)
{
    if (plan.gpus.size() < 2)
        return {};
    QStringList parts;
    for (const auto &g : plan.gpus)
        parts << tr("%1 %2 layers (%3 of %4)")
                     .arg(QString::fromStdString(g.name))
                     .arg(g.layers)
                     .arg(bytesText(g.use.total()), bytesText(g.available));
    return QLatin1Char(' ') + tr("Split: %1.").arg(parts.join(QStringLiteral(", ")));
}

// Where "GPU" would be wrong: one remote machine, or several devices. Empty for one local GPU.
QString FitExplanation::devicesText(const MemoryPlan &plan)
{
    if (plan.gpus.size() == 1 && !plan.gpus[0].remote)
        return {};
    if (plan.gpus.size() == 1)
        return tr("the remote machine %1").arg(QString::fromStdString(plan.gpus[0].description));
    QStringList names;
    for (const auto &g : plan.gpus)
        names << QString::fromStdString(g.name);
    return tr("the devices %1").arg(names.join(QStringLiteral(", ")));
}

// What speculation's second context (a draft model, or the MTP layers) takes of the GPUs: what
// auto-fit traded layers or context for.
QString FitExplanation::speculationText(const MemoryPlan &plan)
{
    quint64 draft = 0;
    for (const auto &g : plan.gpus)
        draft += g.use.draft();
    if (draft == 0)
        return {};
    return QLatin1Char(' ') + tr("Speculative decoding takes %1 of GPU memory for its draft context; turned off, "
                                 "that goes to layers or context.")
                                  .arg(bytesText(draft));
}

QString FitExplanation::fitText(const FitResult &f, const ModelInfo &info, const QString &targetName)
{
    const QString kv = QString::fromStdString(f.settings.context.typeK);
    const QString ctx = contextText(f.settings.context.contextSize);
    const QString where = devicesText(f.plan);
    switch (f.outcome) {
    case FitOutcome::AllOnGpu:
        return (where.isEmpty() ? tr("Everything fits on the GPU: all %1 layers, %2 context, %3 KV cache.")
                                      .arg(f.plan.gpuLayers).arg(ctx, kv)
                                : tr("Everything fits on %1: all %2 layers, %3 context, %4 KV cache.")
                                      .arg(where).arg(f.plan.gpuLayers).arg(ctx, kv)) +
               splitText(f.plan) + speculationText(f.plan);
    case FitOutcome::ExpertsOnCpu:
        return (where.isEmpty()
                    ? tr("All %1 layers on the GPU; the experts of the first %2 layers stay in RAM so that %3 context "
                         "with a %4 KV cache fits.")
                          .arg(f.plan.gpuLayers).arg(f.plan.cpuMoeLayers).arg(ctx, kv)
                    : tr("All %1 layers on %2; the experts of the first %3 layers stay in RAM so that %4 context "
                         "with a %5 KV cache fits.")
                          .arg(f.plan.gpuLayers).arg(where).arg(f.plan.cpuMoeLayers).arg(ctx, kv)) +
               splitText(f.plan) + speculationText(f.plan);
    case FitOutcome::LayersOnCpu:
        return (where.isEmpty() ? tr("%1 of %2 layers on the GPU, the rest in RAM, with %3 context and a %4 KV cache.")
                                      .arg(f.plan.gpuLayers).arg(info.layerCount + 1).arg(ctx, kv)
                                : tr("%1 of %2 layers on %3, the rest in RAM, with %4 context and a %5 KV cache.")
                                      .arg(f.plan.gpuLayers).arg(info.layerCount + 1).arg(where, ctx, kv)) +
               splitText(f.plan) + speculationText(f.plan);
    case FitOutcome::CpuOnly:
        if (f.gpuLeftOut)
            return f.marginBlocks ? tr("Nothing fits on the GPU with the margin kept free: everything runs on the CPU, "
                                       "with %1 context. Lower the margin to use the GPU.").arg(ctx)
                                  : tr("The GPU has no room for this model: everything runs on the CPU, with %1 "
                                       "context.").arg(ctx);
        return tr("No GPU to plan for: everything runs on the CPU, with %1 context.").arg(ctx);
    case FitOutcome::BlockedByLock: {
        QString lock;
        switch (f.blockingLock) {
        case FitLock::GpuLayers: lock = tr("GPU layers"); break;
        case FitLock::CpuMoeLayers: lock = tr("Experts on CPU"); break;
        case FitLock::ContextSize: lock = tr("Context"); break;
        case FitLock::KvType: lock = tr("KV cache"); break;
        case FitLock::None: break;
        }
        return tr("Nothing fits while \"%1\" is locked. Unlock it and run Auto-fit again.").arg(lock);
    }
    case FitOutcome::KvTypeUnusable:
        return unusableKv(info, f.settings.context);
    case FitOutcome::DoesNotFit:
        if (f.marginBlocks)
            return tr("Nothing fits in %1 with the margin kept free on the GPU: lower the margin.").arg(targetName);
        return tr("This model does not fit in %1, not even with everything in RAM.").arg(targetName);
    }
    return {};
}

QString FitExplanation::text(const Input &in)
{
    const auto &info = *in.info;
    const auto &lastFit = *in.lastFit;
    const MemoryPlan &plan = *in.plan;
    const QString &path = in.path;
    if (!info)
        return path.isEmpty() ? tr("Open or pick a model to see what fits.") : tr("This file cannot be read.");
    if (lastFit)
        return fitText(*lastFit, *info, in.targetName);
    if (in.context)
        if (const QString kv = unusableKv(*info, *in.context); !kv.isEmpty())
            return kv;
    for (const auto &g : plan.gpus)
        if (!g.fits())
            return tr("Too much for %1: move layers or experts to the CPU, or press Auto-fit.")
                .arg(QString::fromStdString(g.description));
    if (!plan.ram.fits())
        return tr("Not enough RAM for this plan: try a smaller context or put more on the GPU.");
    if (plan.gpus.empty())
        return tr("Runs on the CPU: %1 of RAM.").arg(bytesText(plan.ram.use.total()));
    if (const QString where = devicesText(plan); !where.isEmpty()) {
        quint64 onDevices = 0;
        for (const auto &g : plan.gpus)
            onDevices += g.use.total();
        return tr("Fits: %1 on %2, %3 in RAM.").arg(bytesText(onDevices), where, bytesText(plan.ram.use.total()));
    }
    return tr("Fits: %1 on the GPU, %2 in RAM.")
        .arg(bytesText(plan.gpus[0].use.total()), bytesText(plan.ram.use.total()));
}

QString FitExplanation::overflow(const MemoryPlan &plan)
{
    for (const auto &g : plan.gpus)
        if (!g.fits())
            return tr("%1 needs %2 of %3")
                .arg(QString::fromStdString(g.name), bytesText(g.use.total()), bytesText(g.available));
    if (!plan.ram.fits())
        return tr("RAM needs %1 of %2").arg(bytesText(plan.ram.use.total()), bytesText(plan.ram.available));
    return {};
}

FitExplanation::Verdict FitExplanation::verdict(const Input &in)
{
    const auto &info = *in.info;
    const MemoryPlan &plan = *in.plan;
    if (!info)
        return {in.path.isEmpty() ? tr("Open or pick a model to see what fits.") : tr("This file cannot be read."),
                in.path.isEmpty()};
    // Auto-fit's own failures say why; its successes read like any plan that fits.
    if (const auto &fit = *in.lastFit; fit && (fit->outcome == FitOutcome::BlockedByLock ||
                                               fit->outcome == FitOutcome::KvTypeUnusable ||
                                               fit->outcome == FitOutcome::DoesNotFit))
        return {fitText(*fit, *info, in.targetName), false};
    if (in.context)
        if (const auto m = OffloadController::kvHeadMismatch(*info, *in.context))
            return {tr("Does not fit: the %1 KV cache needs a head size that is a multiple of %2 (this model: %3) "
                       "— choose f16")
                        .arg(m->type)
                        .arg(m->block)
                        .arg(m->headSize),
                    false};
    const QString on = in.whatIf ? tr(" on %1").arg(in.targetName) : QString();
    if (const QString over = overflow(plan); !over.isEmpty())
        return {tr("Does not fit%1: %2 — press Auto-fit").arg(on, over), false};
    // The CPU alone because no GPU had room: why, on the one line (the plan reads "no GPU"), while
    // it still fits (a replan for less free memory keeps the fit's words).
    if (const auto &fit = *in.lastFit; fit && fit->gpuLeftOut)
        return {fitText(*fit, *info, in.targetName), true};
    quint64 onDevices = 0;
    for (const auto &g : plan.gpus)
        onDevices += g.use.total();
    const QString ram = bytesText(plan.ram.use.total());
    if (plan.gpus.empty())
        return {in.whatIf ? tr("Fits on %1: %2 in RAM, no GPU.").arg(in.targetName, ram)
                          : tr("Runs on the CPU: %1 of RAM.").arg(ram)};
    const QString where = devicesText(plan);
    // What speculation's second context takes of the GPUs (what auto-fit traded for it).
    if (where.isEmpty())
        return {tr("Fits%1: %2 on the GPU, %3 in RAM.").arg(on, bytesText(onDevices), ram) + speculationText(plan)};
    return {tr("Fits%1: %2 on %3, %4 in RAM.").arg(on, bytesText(onDevices), where, ram) + speculationText(plan)};
}
