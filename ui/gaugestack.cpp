#include "gaugestack.h"

#include "gaugebar.h"

#include <QLabel>
#include <QVBoxLayout>

using namespace shoehorn;

GaugeStack::GaugeStack(QWidget *parent) : QWidget(parent), m_box(new QVBoxLayout)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addLayout(m_box);
    auto *legend = new QLabel(this);
    legend->setText(QStringLiteral("<span style='color:%1'>■</span> %2 &nbsp; <span style='color:%3'>■</span> %4 &nbsp; "
                                   "<span style='color:%5'>■</span> %6 &nbsp; <span style='color:%7'>■</span> %8 &nbsp; "
                                   "<span style='color:%9'>■</span> %10 &nbsp; <span style='color:%11'>▒</span> %12")
                        .arg(GaugeBar::colorDense().name(), tr("weights"), GaugeBar::colorExperts().name(),
                             tr("experts"), GaugeBar::colorKv().name(), tr("KV cache"),
                             GaugeBar::colorCompute().name(), tr("compute"), GaugeBar::colorProjector().name())
                        .arg(tr("vision projector"), GaugeBar::colorFilePages().name(),
                             tr("model file pages (RAM, reclaimable)")));
    legend->setWordWrap(true);
    outer->addWidget(legend);
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
        return;
    auto segments = [](const MemoryUse &u) {
        return QList<GaugeBar::Segment>{{tr("weights"), u.weightsDense, GaugeBar::colorDense()},
                                        {tr("experts"), u.weightsExperts, GaugeBar::colorExperts()},
                                        {tr("KV cache"), u.kvFull + u.kvSwa + u.recurrent, GaugeBar::colorKv()},
                                        {tr("compute"), u.compute + u.overhead, GaugeBar::colorCompute()},
                                        {tr("vision projector"), u.projector, GaugeBar::colorProjector()}};
    };
    for (size_t i = 0; i < plan->gpus.size(); ++i) {
        const DevicePlan &d = plan->gpus[i];
        const QString title = QStringLiteral("%1 · %2").arg(QString::fromStdString(d.name),
                                                            QString::fromStdString(d.description));
        m_gauges[int(i)]->setData(title, segments(d.use), d.available, d.capacity);
        m_gauges[int(i)]->setMeasured(measured && i < measured->gpus.size() ? measured->gpus[i].use.total() : 0,
                                      d.use.projector);
    }
    // RAM in its two parts (MemoryPlan): what only this process holds, solid, and the model
    // file's pages that mmap keeps, patterned (the system can reclaim them).
    GaugeBar *ram = m_gauges.last();
    const MemoryUse &u = plan->ram.use;
    const quint64 file = std::min<quint64>(plan->mmapResidentBytes, u.weights());
    const double anon = u.weights() ? double(u.weights() - file) / double(u.weights()) : 0.0;
    const quint64 dense = quint64(double(u.weightsDense) * anon + 0.5);
    const quint64 experts = u.weights() - file - dense;
    ram->setData(tr("RAM"),
                 {{tr("weights"), dense, GaugeBar::colorDense()},
                  {tr("experts"), experts, GaugeBar::colorExperts()},
                  {tr("model file pages (reclaimable)"), file, GaugeBar::colorFilePages(), true},
                  {tr("KV cache"), u.kvFull + u.kvSwa + u.recurrent, GaugeBar::colorKv()},
                  {tr("compute"), u.compute + u.overhead, GaugeBar::colorCompute()},
                  {tr("vision projector"), u.projector, GaugeBar::colorProjector()}},
                 plan->ram.available, plan->ram.capacity);
    ram->setMeasured(measured ? measured->ram.use.total() : 0, u.projector);
}
