#include "gaugestack.h"

#include "gaugebar.h"
#include "offloadtexts.h"

#include <QLabel>
#include <QVBoxLayout>

using namespace shoehorn;

GaugeStack::GaugeStack(QWidget *parent) : QWidget(parent), m_box(new QVBoxLayout), m_legend(new QLabel(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    m_box->setSpacing(2);
    outer->addLayout(m_box);
    m_legend->setObjectName(QStringLiteral("gaugeLegend"));
    m_legend->setWordWrap(true);
    m_legend->setToolTip(tr("Hover over a part of a bar for its exact size."));
    outer->addWidget(m_legend);
}

// The kinds some gauge shows, in the bars' order: a dense model has no experts, few have a
// projector.
void GaugeStack::updateLegend()
{
    QStringList kinds;
    m_kinds.clear();
    for (const GaugeBar *g : m_gauges)
        for (const auto &s : g->segments()) {
            if (s.bytes == 0 || m_kinds.contains(s.label))
                continue;
            m_kinds << s.label;
            kinds << QStringLiteral("<span style='color:%1'>%2</span>&nbsp;%3")
                         .arg(s.color.name(), s.reclaimable ? QStringLiteral("▒") : QStringLiteral("■"),
                              s.label.toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;")));
        }
    m_legend->setText(kinds.join(QStringLiteral(" &nbsp; ")));
    m_legend->setVisible(!kinds.isEmpty());
}

void GaugeStack::show(const MemoryPlan *plan, const MemoryPlan *measured)
{
    const int needed = plan ? int(plan->gpus.size()) + 1 : 0;
    while (m_gauges.size() < needed) {
        auto *g = new GaugeBar(this);
        g->setObjectName(QStringLiteral("gauge%1").arg(m_gauges.size()));
        m_box->addWidget(g);
        m_gauges << g;
    }
    while (m_gauges.size() > needed)
        delete m_gauges.takeLast();
    if (!plan)
        return updateLegend();
    auto segments = [](const MemoryUse &u) {
        return QList<GaugeBar::Segment>{{tr("weights"), u.weightsDense, GaugeBar::colorDense()},
                                        {tr("experts"), u.weightsExperts, GaugeBar::colorExperts()},
                                        {tr("KV cache"), u.kvFull + u.kvSwa + u.recurrent, GaugeBar::colorKv()},
                                        {tr("compute"), u.compute + u.overhead, GaugeBar::colorCompute()},
                                        {tr("vision projector"), u.projector, GaugeBar::colorProjector()},
                                        {tr("speculation: weights"), u.draftWeights, GaugeBar::colorDraftWeights()},
                                        {tr("speculation: KV cache"), u.draftKv, GaugeBar::colorDraftKv()},
                                        {tr("speculation: compute"), u.draftCompute, GaugeBar::colorDraftCompute()}};
    };
    for (size_t i = 0; i < plan->gpus.size(); ++i) {
        const DevicePlan &d = plan->gpus[i];
        const QString title = QStringLiteral("%1 · %2").arg(QString::fromStdString(d.name),
                                                            QString::fromStdString(d.description));
        m_gauges[int(i)]->setData(title, segments(d.use), d.available, d.capacity);
        // llama.cpp's buffers against the plan's (OffloadTexts::llamaBuffers).
        const MemoryUse *got = measured && i < measured->gpus.size() ? &measured->gpus[i].use : nullptr;
        m_gauges[int(i)]->setMeasured(got ? OffloadTexts::llamaBuffers(*got) : 0,
                                      d.use.total() - OffloadTexts::llamaBuffers(d.use));
    }
    // RAM in its two parts (MemoryPlan): what only this process holds, solid, and the model
    // file's pages that mmap keeps, patterned (the system can reclaim them).
    GaugeBar *ram = m_gauges.last();
    const MemoryUse &u = plan->ram.use;
    // The file pages belong to the model's and the draft model's (or MTP layers') weights alike:
    // each kind keeps its anonymous share.
    const quint64 weights = u.weights() + u.draftWeights;
    const quint64 file = std::min<quint64>(plan->mmapResidentBytes, weights);
    const double anon = weights ? double(weights - file) / double(weights) : 0.0;
    const quint64 dense = quint64(double(u.weightsDense) * anon + 0.5);
    const quint64 draft = quint64(double(u.draftWeights) * anon + 0.5);
    const quint64 experts = weights - file - dense - draft;
    ram->setData(tr("RAM"),
                 {{tr("weights"), dense, GaugeBar::colorDense()},
                  {tr("experts"), experts, GaugeBar::colorExperts()},
                  {tr("file pages (reclaimable)"), file, GaugeBar::colorFilePages(), true},
                  {tr("KV cache"), u.kvFull + u.kvSwa + u.recurrent, GaugeBar::colorKv()},
                  {tr("compute"), u.compute + u.overhead, GaugeBar::colorCompute()},
                  {tr("vision projector"), u.projector, GaugeBar::colorProjector()},
                  {tr("speculation: weights"), draft, GaugeBar::colorDraftWeights()},
                  {tr("speculation: KV cache"), u.draftKv, GaugeBar::colorDraftKv()},
                  {tr("speculation: compute"), u.draftCompute, GaugeBar::colorDraftCompute()}},
                 plan->ram.available, plan->ram.capacity);
    ram->setMeasured(measured ? measured->ram.use.total() : 0, u.projector);
    updateLegend();
}
