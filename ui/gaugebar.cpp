#include "gaugebar.h"

#include "modelinfo.h"
#include "units.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>


GaugeBar::GaugeBar(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void GaugeBar::setData(const QString &title, const QList<Segment> &segments, quint64 available, quint64 capacity)
{
    m_title = title;
    m_segments = segments;
    m_available = available;
    m_capacity = std::max(capacity, available);
    updateToolTip();
    update();
}

// The parts, and the measured line in full (painted elided when the panel is narrow).
void GaugeBar::updateToolTip()
{
    QStringList tip;
    for (const Segment &s : m_segments)
        tip << QStringLiteral("%1: %2").arg(s.label, bytesText(s.bytes));
    tip << tr("Available: %1 of %2").arg(bytesText(m_available), bytesText(m_capacity));
    if (const QString measured = measuredText(); !measured.isEmpty())
        tip << measured;
    setToolTip(tip.join(QLatin1Char('\n')));
}

void GaugeBar::setMeasured(quint64 bytes, quint64 notMeasured)
{
    const bool lineChanges = (m_measured == 0) != (bytes == 0);
    m_measured = bytes;
    m_notMeasured = notMeasured;
    updateToolTip();
    if (lineChanges)
        updateGeometry(); // the measured line under the bar comes or goes
    update();
}

QString GaugeBar::mibText(quint64 bytes)
{
    return tr("%1 MiB").arg(double(bytes) / (1024.0 * 1024.0), 0, 'f', 1);
}

QRectF GaugeBar::barRect() const
{
    return QRectF(0.5, fontMetrics().height() + 4.5, width() - 1.0, 16);
}

// The scale is the card (or RAM) size, or what is asked for when that is more.
double GaugeBar::scale() const
{
    return double(std::max<quint64>({m_capacity, used(), 1}));
}

int GaugeBar::segmentAt(int x) const
{
    const QRectF bar = barRect();
    double left = bar.left();
    for (int i = 0; i < m_segments.size(); ++i) {
        const double right = left + bar.width() * double(m_segments[i].bytes) / scale();
        if (m_segments[i].bytes > 0 && x >= left && x < right)
            return i;
        left = right;
    }
    return -1;
}

QString GaugeBar::toolTipAt(const QPoint &pos) const
{
    const QRectF bar = barRect();
    const int i = pos.y() >= bar.top() - 2 && pos.y() <= bar.bottom() + 2 ? segmentAt(pos.x()) : -1;
    if (i < 0)
        return toolTip();
    const Segment &s = m_segments[i];
    const double share = used() ? 100.0 * double(s.bytes) / double(used()) : 0.0;
    return tr("%1: %2\n%3% of the %4 planned for %5")
        .arg(s.label, mibText(s.bytes))
        .arg(share, 0, 'f', 1)
        .arg(bytesText(used()), m_title);
}

bool GaugeBar::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        QToolTip::showText(help->globalPos(), toolTipAt(help->pos()), this);
        return true;
    }
    return QWidget::event(event);
}

quint64 GaugeBar::used() const
{
    quint64 u = 0;
    for (const Segment &s : m_segments)
        u += s.bytes;
    return u;
}

QString GaugeBar::summaryText() const
{
    if (overCapacity())
        return tr("%1 of %2 — does not fit").arg(bytesText(used()), bytesText(m_available));
    return tr("%1 of %2").arg(bytesText(used()), bytesText(m_available));
}

std::optional<double> GaugeBar::measuredDifference() const
{
    if (m_measured == 0)
        return std::nullopt;
    const quint64 planned = used() > m_notMeasured ? used() - m_notMeasured : 0;
    return planned ? 100.0 * (double(m_measured) - double(planned)) / double(planned) : 0.0;
}

QString GaugeBar::measuredText() const
{
    if (m_measured == 0)
        return {};
    const quint64 planned = used() > m_notMeasured ? used() - m_notMeasured : 0;
    const qint64 diff = qint64(m_measured) - qint64(planned);
    const double pct = planned ? 100.0 * double(std::llabs(diff)) / double(planned) : 0.0;
    return tr("Loaded: llama.cpp allocated %1, %2%3 (%4%) against the plan")
        .arg(bytesText(m_measured), diff >= 0 ? QStringLiteral("+") : QStringLiteral("−"),
             bytesText(quint64(std::llabs(diff))))
        .arg(pct, 0, 'f', 1);
}

// The title line and the bar; the measured line under it once there is one.
QString GaugeBar::measuredLine() const
{
    const auto diff = measuredDifference();
    if (!diff)
        return {};
    const QString sign = *diff < -0.05 ? QStringLiteral("−") : QStringLiteral("+");
    return tr("Allocated at load: %1 (%2%3%)").arg(bytesText(m_measured), sign).arg(std::abs(*diff), 0, 'f', 1);
}

QSize GaugeBar::sizeHint() const
{
    const int line = fontMetrics().height();
    return {320, line + 24 + (m_measured > 0 ? line + 2 : 0)};
}

QSize GaugeBar::minimumSizeHint() const
{
    return {160, sizeHint().height()};
}

void GaugeBar::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const int line = fontMetrics().height();
    const QRect titleRect(0, 0, width(), line);
    p.setPen(palette().color(QPalette::WindowText));
    QFont bold = font();
    bold.setBold(true);
    const QString summary = summaryText();
    const int summaryWidth = fontMetrics().horizontalAdvance(summary);
    p.setFont(bold);
    p.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetrics(bold).elidedText(m_title, Qt::ElideRight, std::max(0, width() - summaryWidth - 12)));
    p.setFont(font());
    p.setPen(overCapacity() ? QColor(0xdc, 0x26, 0x26) : palette().color(QPalette::WindowText));
    p.drawText(titleRect, Qt::AlignRight | Qt::AlignVCenter, summary);

    const QRectF bar = barRect();
    const double scale = this->scale();
    QPainterPath clip;
    clip.addRoundedRect(bar, 4, 4);
    p.setClipPath(clip);
    p.fillRect(bar, palette().color(QPalette::Base));
    double x = bar.left();
    for (const Segment &s : m_segments) {
        const double w = bar.width() * double(s.bytes) / scale;
        if (s.reclaimable)
            p.fillRect(QRectF(x, bar.top(), w, bar.height()), QBrush(s.color, Qt::Dense4Pattern));
        else
            p.fillRect(QRectF(x, bar.top(), w, bar.height()), s.color);
        x += w;
    }
    // Memory that exists but is not available (other programs, the desktop): hatched.
    if (m_capacity > m_available) {
        const double from = bar.left() + bar.width() * double(m_available) / scale;
        const double to = bar.left() + bar.width() * double(m_capacity) / scale;
        if (to > std::max(from, x))
            p.fillRect(QRectF(std::max(from, x), bar.top(), to - std::max(from, x), bar.height()),
                       QBrush(palette().color(QPalette::Mid), Qt::BDiagPattern));
    }
    if (overCapacity()) {
        const double limit = bar.left() + bar.width() * double(m_available) / scale;
        p.fillRect(QRectF(limit, bar.top(), x - limit, bar.height()), QColor(0xdc, 0x26, 0x26, 200));
    }
    p.setClipping(false);
    p.setPen(QPen(overCapacity() ? QColor(0xdc, 0x26, 0x26) : palette().color(QPalette::Mid), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(bar, 4, 4);
    if (m_measured > 0) {
        const double mx = bar.left() + bar.width() * double(m_measured + m_notMeasured) / scale;
        p.setPen(QPen(palette().color(QPalette::WindowText), 2));
        p.drawLine(QPointF(mx, bar.top() - 2), QPointF(mx, bar.bottom() + 2));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(0, int(bar.bottom()) + 4, width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                   fontMetrics().elidedText(measuredLine(), Qt::ElideRight, width()));
    }
}
