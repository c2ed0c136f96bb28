#pragma once

#include <QColor>
#include <QList>
#include <QWidget>

#include <optional>

// A stacked memory bar for one device: what each kind of buffer takes, the free rest, and
// red past what is available. Optionally the measured total after loading.
class GaugeBar : public QWidget
{
    Q_OBJECT
public:
    struct Segment {
        QString label;
        quint64 bytes = 0;
        QColor color;
        // Memory the system can take back (model file pages kept by mmap): drawn as a pattern
        // of the colour instead of solid, so the two RAM parts read apart on the bar.
        bool reclaimable = false;
    };

    explicit GaugeBar(QWidget *parent = nullptr);
    void setData(const QString &title, const QList<Segment> &segments, quint64 available, quint64 capacity);
    // After loading: llama.cpp's own number for this device (0 hides it): what llama.cpp allocated for the model and its context. `notMeasured` is the part of the
    // plan such a measurement does not cover (the vision projector, loaded by libmtmd): the
    // comparison leaves it out on both sides.
    void setMeasured(quint64 bytes, quint64 notMeasured = 0);

    quint64 used() const;
    quint64 available() const { return m_available; }
    bool overCapacity() const { return used() > m_available; }
    QString title() const { return m_title; }
    QString summaryText() const;
    QString measuredText() const;
    // The line painted under the bar once loaded: "Allocated at load: 4.20 GiB (+5.0%)";
    // measuredText() says it in full (the tooltip).
    QString measuredLine() const;
    // The plan against what llama.cpp allocated, in percent (positive: more than planned);
    // nullopt before a load.
    std::optional<double> measuredDifference() const;
    // The part of the bar under x (widget coordinates): its index in segments(), -1 for none.
    int segmentAt(int x) const;
    // What the tooltip says at a point: over a part, that part in exact MiB and its share;
    // elsewhere every part.
    QString toolTipAt(const QPoint &pos) const;
    // "3 456.2 MiB": exact sizes for tooltips (the bar's own text rounds to GiB).
    static QString mibText(quint64 bytes);
    const QList<Segment> &segments() const { return m_segments; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    static QColor colorDense() { return QColor(0x3b, 0x82, 0xf6); }
    static QColor colorExperts() { return QColor(0x8b, 0x5c, 0xf6); }
    static QColor colorKv() { return QColor(0x10, 0xb9, 0x81); }
    static QColor colorCompute() { return QColor(0xf5, 0x9e, 0x0b); }
    static QColor colorFilePages() { return QColor(0x64, 0x74, 0x8b); }
    static QColor colorProjector() { return QColor(0xec, 0x48, 0x99); }
    // Speculation's second context (a draft model or the MTP layers): shades of one hue.
    static QColor colorDraftWeights() { return QColor(0x0e, 0x74, 0x90); }
    static QColor colorDraftKv() { return QColor(0x06, 0xb6, 0xd4); }
    static QColor colorDraftCompute() { return QColor(0x67, 0xe8, 0xf9); }

protected:
    void paintEvent(QPaintEvent *event) override;
    bool event(QEvent *event) override;

private:
    void updateToolTip();
    QRectF barRect() const;
    double scale() const;
    QString m_title;
    QList<Segment> m_segments;
    quint64 m_available = 0;
    quint64 m_capacity = 0;
    quint64 m_measured = 0;
    quint64 m_notMeasured = 0;
};
