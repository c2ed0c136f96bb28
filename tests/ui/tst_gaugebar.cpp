// The memory gauge: what it sums and says (summary, tooltip, measured line), and what it
// paints: the segments in their colours, the free part, the hatched part that exists but is
// not available, red past what is available, and the measured marker.
#include "gaugebar.h"
#include "gaugestack.h"

#include "hardware.h"

#include <QApplication>
#include <QImage>
#include <QtTest>

using namespace shoehorn;
using Segment = GaugeBar::Segment;

Q_DECLARE_METATYPE(GaugeBar::Segment)

namespace {

const QColor kWindow(Qt::white);
const QColor kText(Qt::black);
const QColor kBase(0xf0, 0xf0, 0xf0);
const QColor kMid(0x80, 0x80, 0x80);

// A bar with a fixed palette and width, so pixels can be predicted.
struct Painted {
    GaugeBar bar;
    QImage image;
    int line = 0;
    Painted(const QList<Segment> &segments, quint64 available, quint64 capacity, quint64 measured = 0)
    {
        QPalette p = bar.palette();
        p.setColor(QPalette::Window, kWindow);
        p.setColor(QPalette::WindowText, kText);
        p.setColor(QPalette::Base, kBase);
        p.setColor(QPalette::Mid, kMid);
        p.setColor(QPalette::PlaceholderText, kText);
        bar.setPalette(p);
        bar.setAutoFillBackground(true);
        bar.setData("CUDA0", segments, available, capacity);
        bar.setMeasured(measured);
        bar.resize(401, bar.sizeHint().height());
        image = bar.grab().toImage();
        line = bar.fontMetrics().height();
    }
    // The bar is 16 px high below the title line, 400 px wide, with a 1 px border.
    int aboveBar() const { return line + 3; }
    int barTop() const { return line + 5; }
    int barMiddle() const { return line + 12; }
    int barBottom() const { return line + 20; }
    // The x of a byte count on the bar's scale.
    int x(quint64 bytes, quint64 scale) const { return int(0.5 + 400.0 * double(bytes) / double(scale)); }
    QColor at(int x, int y) const { return image.pixelColor(x, y); }
    // Pixels in a rectangle that are not the window background.
    int inked(const QRect &r) const
    {
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x)
                n += image.pixelColor(x, y) != kWindow;
        return n;
    }
    int reddish(const QRect &r) const
    {
        int n = 0;
        for (int y = r.top(); y <= r.bottom(); ++y)
            for (int x = r.left(); x <= r.right(); ++x) {
                const QColor c = image.pixelColor(x, y);
                n += c.red() > c.green() + 80 && c.red() > c.blue() + 80;
            }
        return n;
    }
};

QString colorText(const QColor &c)
{
    return c.name();
}

} // namespace

class TestGaugeBar : public QObject
{
    Q_OBJECT
private slots:
    void sums_data();
    void sums();
    void tooltip();
    void capacityIsAtLeastAvailable();
    void measuredText_data();
    void measuredText();
    void paintsReclaimablePatterned();
    void ramGaugeShowsTwoParts_data();
    void ramGaugeShowsTwoParts();
    void paintsSegmentsFreeAndHatched();
    void paintsOverCapacityRed();
    void paintsMeasuredMarker();
    void segmentTooltips_data();
    void segmentTooltips();
    void legendNamesWhatIsShown();
};

void TestGaugeBar::sums_data()
{
    QTest::addColumn<QList<Segment>>("segments");
    QTest::addColumn<quint64>("available");
    QTest::addColumn<quint64>("used");
    QTest::addColumn<bool>("over");
    QTest::addColumn<QString>("summary");
    const Segment dense{"Weights", 4 * GiB, GaugeBar::colorDense()};
    const Segment kv{"KV cache", 1536 * MiB, GaugeBar::colorKv()};
    QTest::newRow("empty") << QList<Segment>{} << quint64(8 * GiB) << quint64(0) << false << "0 B of 8.00 GiB";
    QTest::newRow("fits") << QList<Segment>{dense, kv} << quint64(8 * GiB) << quint64(5632 * MiB) << false
                          << "5.50 GiB of 8.00 GiB";
    QTest::newRow("exactly full") << QList<Segment>{dense, dense} << quint64(8 * GiB) << quint64(8 * GiB) << false
                                  << "8.00 GiB of 8.00 GiB";
    QTest::newRow("one byte over") << QList<Segment>{dense, dense, {"x", 1, Qt::gray}} << quint64(8 * GiB)
                                   << quint64(8 * GiB + 1) << true << "8.00 GiB of 8.00 GiB — does not fit";
    QTest::newRow("nothing available") << QList<Segment>{kv} << quint64(0) << quint64(1536 * MiB) << true
                                       << "1.50 GiB of 0 B — does not fit";
}

void TestGaugeBar::sums()
{
    QFETCH(QList<Segment>, segments);
    QFETCH(quint64, available);
    QFETCH(quint64, used);
    QFETCH(bool, over);
    QFETCH(QString, summary);
    GaugeBar bar;
    bar.setData("CUDA0", segments, available, 12 * GiB);
    QCOMPARE(bar.used(), used);
    QCOMPARE(bar.available(), available);
    QCOMPARE(bar.overCapacity(), over);
    QCOMPARE(bar.summaryText(), summary);
    // New data replaces the old.
    bar.setData("CUDA0", {}, available, 12 * GiB);
    QCOMPARE(bar.used(), quint64(0));
    QCOMPARE(bar.overCapacity(), false);
}

void TestGaugeBar::tooltip()
{
    GaugeBar bar;
    bar.setData("CUDA0",
                {{"Weights", 4 * GiB, GaugeBar::colorDense()},
                 {"Experts 专家", 512 * MiB, GaugeBar::colorExperts()},
                 {"Compute", 100, GaugeBar::colorCompute()}},
                10 * GiB, 12 * GiB);
    QCOMPARE(bar.toolTip().split('\n'), QStringList({"Weights: 4.00 GiB", "Experts 专家: 512.0 MiB", "Compute: 100 B",
                                                     "Available: 10.00 GiB of 12.00 GiB"}));
}

void TestGaugeBar::capacityIsAtLeastAvailable()
{
    // A card that reports more free than total memory: the scale is what is available.
    GaugeBar bar;
    bar.setData("CUDA0", {}, 10 * GiB, 8 * GiB);
    QCOMPARE(bar.toolTip(), QString("Available: 10.00 GiB of 10.00 GiB"));
}

void TestGaugeBar::measuredText_data()
{
    QTest::addColumn<quint64>("planned");
    QTest::addColumn<quint64>("measured");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("line"); // painted under the bar
    QTest::newRow("not loaded") << quint64(4 * GiB) << quint64(0) << QString() << QString();
    QTest::newRow("as planned") << quint64(4 * GiB) << quint64(4 * GiB)
                                << "Loaded: llama.cpp allocated 4.00 GiB, +0 B (0.0%) against the plan"
                                << "Allocated at load: 4.00 GiB (+0.0%)";
    QTest::newRow("more") << quint64(4 * GiB) << quint64(4 * GiB + 205 * MiB)
                          << "Loaded: llama.cpp allocated 4.20 GiB, +205.0 MiB (5.0%) against the plan"
                          << "Allocated at load: 4.20 GiB (+5.0%)";
    QTest::newRow("less") << quint64(4 * GiB) << quint64(3 * GiB)
                          << "Loaded: llama.cpp allocated 3.00 GiB, −1.00 GiB (25.0%) against the plan"
                          << "Allocated at load: 3.00 GiB (−25.0%)";
    QTest::newRow("nothing planned") << quint64(0) << quint64(300 * MiB)
                                     << "Loaded: llama.cpp allocated 300.0 MiB, +300.0 MiB (0.0%) against the plan"
                                     << "Allocated at load: 300.0 MiB (+0.0%)";
}

void TestGaugeBar::measuredText()
{
    QFETCH(quint64, planned);
    QFETCH(quint64, measured);
    QFETCH(QString, text);
    QFETCH(QString, line);
    GaugeBar bar;
    bar.setData("CUDA0", planned ? QList<Segment>{{"Weights", planned, Qt::blue}} : QList<Segment>{}, 8 * GiB,
                8 * GiB);
    bar.setMeasured(measured);
    QCOMPARE(bar.measuredText(), text);
    QCOMPARE(bar.measuredLine(), line);
    // In full in the tooltip: the painted line is short, and cut off when the panel is narrow.
    if (text.isEmpty())
        QVERIFY(!bar.toolTip().contains("Loaded"));
    else
        QCOMPARE(bar.toolTip().split('\n').last(), text);
}

void TestGaugeBar::paintsSegmentsFreeAndHatched()
{
    // 12 GiB card, 10 GiB available: weights 4, KV 2, then free up to 10, hatched to 12.
    const quint64 scale = 12 * GiB;
    Painted p({{"Weights", 4 * GiB, GaugeBar::colorDense()}, {"KV", 2 * GiB, GaugeBar::colorKv()}}, 10 * GiB,
              12 * GiB);
    const int y = p.barMiddle();
    QCOMPARE(colorText(p.at(p.x(2 * GiB, scale), y)), colorText(GaugeBar::colorDense()));
    QCOMPARE(colorText(p.at(p.x(5 * GiB, scale), y)), colorText(GaugeBar::colorKv()));
    QCOMPARE(colorText(p.at(p.x(8 * GiB, scale), y)), colorText(kBase));
    // Hatching: the Mid colour on some pixels of a row, not on all.
    int mid = 0, span = 0;
    for (int x = p.x(10 * GiB, scale) + 3; x < p.x(12 * GiB, scale) - 6; ++x, ++span)
        mid += p.at(x, y) == kMid;
    QVERIFY2(mid > span / 10 && mid < span, qPrintable(QString("%1 of %2").arg(mid).arg(span)));
    for (int x = p.x(6 * GiB, scale) + 3; x < p.x(10 * GiB, scale) - 3; ++x)
        QCOMPARE(colorText(p.at(x, y)), colorText(kBase));
    // Fits: nothing red, neither the bar nor the summary.
    QCOMPARE(p.reddish(p.image.rect()), 0);
    // The title and the summary are written in the first line.
    QVERIFY(p.inked(QRect(0, 0, 100, p.line)) > 20);
    QVERIFY(p.inked(QRect(300, 0, 100, p.line)) > 20);
}

void TestGaugeBar::paintsOverCapacityRed()
{
    // 10 GiB available, 14 GiB asked for: the scale grows to 14, red from 10 on.
    const quint64 scale = 14 * GiB;
    Painted p({{"Weights", 8 * GiB, GaugeBar::colorDense()}, {"Experts", 6 * GiB, GaugeBar::colorExperts()}},
              10 * GiB, 12 * GiB);
    QVERIFY(p.bar.overCapacity());
    const int y = p.barMiddle();
    QCOMPARE(colorText(p.at(p.x(4 * GiB, scale), y)), colorText(GaugeBar::colorDense()));
    QCOMPARE(colorText(p.at(p.x(9 * GiB, scale), y)), colorText(GaugeBar::colorExperts()));
    const QRect past(p.x(10 * GiB, scale) + 3, p.barTop() + 3, p.x(scale, scale) - p.x(10 * GiB, scale) - 6, 8);
    QCOMPARE(p.reddish(past), past.width() * past.height());
    QCOMPARE(p.reddish(QRect(3, p.barTop() + 3, p.x(10 * GiB, scale) - 6, 8)), 0);
    // The border turns red as well (grey when it fits).
    QCOMPARE(p.reddish(QRect(0, p.barTop() + 3, 1, 8)), 8);
    // The summary ("does not fit") is red too.
    QVERIFY(p.reddish(QRect(200, 0, 201, p.line)) > 20);
}

void TestGaugeBar::paintsMeasuredMarker()
{
    const quint64 scale = 12 * GiB;
    const QList<Segment> segments{{"Weights", 4 * GiB, GaugeBar::colorDense()}};
    Painted without(segments, 10 * GiB, 12 * GiB);
    Painted with(segments, 10 * GiB, 12 * GiB, 6 * GiB);
    // A dark line across the bar at 6 GiB, sticking out above it.
    const int mx = with.x(6 * GiB, scale);
    QVERIFY2(with.at(mx, with.aboveBar()).lightness() < 100, qPrintable(colorText(with.at(mx, with.aboveBar()))));
    QVERIFY(with.at(mx, with.barMiddle()).lightness() < 100);
    QCOMPARE(colorText(without.at(mx, without.aboveBar())), colorText(kWindow));
    QCOMPARE(colorText(without.at(mx, without.barMiddle())), colorText(kBase));
    // And the measured sentence under the bar.
    const QRect below(0, with.barBottom() + 4, 400, with.line);
    QVERIFY(with.image.height() >= below.bottom());
    QVERIFY(with.inked(below) > 50);
    // Before a load the gauge has no such line: it ends under the bar.
    QVERIFY(without.image.height() <= below.top());
    QCOMPARE(without.bar.sizeHint().height(), with.bar.sizeHint().height() - with.line - 2);
}

// Model file pages kept by mmap (reclaimable) are a pattern of their colour, not solid.
void TestGaugeBar::paintsReclaimablePatterned()
{
    const quint64 scale = 12 * GiB;
    Painted p({{"weights", 2 * GiB, GaugeBar::colorDense()},
               {"file", 4 * GiB, GaugeBar::colorFilePages(), true}},
              12 * GiB, 12 * GiB);
    const int y = p.barMiddle();
    QCOMPARE(colorText(p.at(p.x(1 * GiB, scale), y)), colorText(GaugeBar::colorDense()));
    int coloured = 0, base = 0, span = 0;
    for (int x = p.x(2 * GiB, scale) + 3; x < p.x(6 * GiB, scale) - 3; ++x, ++span) {
        coloured += p.at(x, y) == GaugeBar::colorFilePages();
        base += p.at(x, y) == kBase;
    }
    QVERIFY2(coloured > span / 4 && base > span / 10, qPrintable(QString("%1 coloured, %2 base of %3")
                                                                      .arg(coloured).arg(base).arg(span)));
}

// The RAM gauge shows the plan's two parts: anonymous memory solid, model file pages patterned,
// and together the plan's RAM total.
void TestGaugeBar::ramGaugeShowsTwoParts_data()
{
    QTest::addColumn<quint64>("experts");
    QTest::addColumn<quint64>("draft"); // a draft model's weights in RAM
    QTest::addColumn<quint64>("mapped");
    QTest::newRow("repacked experts") << quint64(9 * GiB) << quint64(0) << quint64(8 * GiB);
    // Everything mapped, the draft model's file pages among them: more file pages than the
    // model's own weights.
    QTest::newRow("a draft model, all mapped") << quint64(0) << quint64(2 * GiB) << quint64(5 * GiB);
}

void TestGaugeBar::ramGaugeShowsTwoParts()
{
    QFETCH(quint64, experts);
    QFETCH(quint64, draft);
    QFETCH(quint64, mapped);
    MemoryPlan plan;
    plan.ram.use.weightsDense = 3 * GiB;
    plan.ram.use.weightsExperts = experts;
    plan.ram.use.draftWeights = draft;
    plan.ram.use.kvFull = 1 * GiB;
    plan.ram.use.compute = 512 * MiB;
    plan.ram.available = 20 * GiB;
    plan.ram.capacity = 24 * GiB;
    plan.mmapResidentBytes = mapped; // of the weights: the rest is repacked (anonymous)
    GaugeStack stack;
    stack.show(&plan, nullptr);
    auto *ram = stack.findChild<GaugeBar *>("gauge0");
    QVERIFY(ram);
    quint64 file = 0, solid = 0;
    for (const Segment &s : ram->segments())
        (s.reclaimable ? file : solid) += s.bytes;
    QCOMPARE(file, mapped);
    QCOMPARE(solid, plan.anonymousBytes());
    QCOMPARE(ram->used(), plan.ram.use.total());
}

// Each part of the bar has its own tooltip with its exact size in MiB; outside the parts, the
// whole list.
void TestGaugeBar::segmentTooltips_data()
{
    QTest::addColumn<quint64>("at"); // bytes along the bar's 12 GiB scale
    QTest::addColumn<QString>("tip");
    QTest::newRow("weights") << quint64(1 * GiB) << "weights: 2048.0 MiB\n40.0% of the 5.00 GiB planned for CUDA0";
    QTest::newRow("experts") << quint64(2 * GiB + 512 * MiB)
                             << "experts: 1024.0 MiB\n20.0% of the 5.00 GiB planned for CUDA0";
    QTest::newRow("KV cache") << quint64(4 * GiB) << "KV cache: 1843.2 MiB\n36.0% of the 5.00 GiB planned for CUDA0";
    QTest::newRow("compute") << quint64(5 * GiB - 100 * MiB)
                             << "compute: 204.8 MiB\n4.0% of the 5.00 GiB planned for CUDA0";
    QTest::newRow("free") << quint64(8 * GiB) << "";
}

void TestGaugeBar::segmentTooltips()
{
    QFETCH(quint64, at);
    QFETCH(QString, tip);
    Painted p({{"weights", 2 * GiB, GaugeBar::colorDense()},
               {"experts", 1 * GiB, GaugeBar::colorExperts()},
               {"empty", 0, GaugeBar::colorProjector()},
               {"KV cache", 1843 * MiB + 205 * 1024, GaugeBar::colorKv()},
               {"compute", 204 * MiB + 819 * 1024, GaugeBar::colorCompute()}},
              10 * GiB, 12 * GiB);
    const QPoint pos(p.x(at, 12 * GiB), p.barMiddle());
    QCOMPARE(p.bar.toolTipAt(pos), tip.isEmpty() ? p.bar.toolTip() : tip);
    // Above the bar (the title line): the whole list, not one part.
    QCOMPARE(p.bar.toolTipAt(QPoint(pos.x(), 2)), p.bar.toolTip());
}

void TestGaugeBar::legendNamesWhatIsShown()
{
    MemoryPlan plan;
    plan.gpus.resize(1);
    plan.gpus[0].name = "CUDA0";
    plan.gpus[0].use.weightsDense = 3 * GiB;
    plan.gpus[0].use.kvFull = 1 * GiB;
    plan.gpus[0].available = plan.gpus[0].capacity = 6 * GiB;
    plan.ram.use.weightsExperts = 9 * GiB;
    plan.ram.available = plan.ram.capacity = 24 * GiB;
    GaugeStack stack;
    stack.show(&plan, nullptr);
    // The GPU's parts, then what only RAM has; nothing of size 0.
    QCOMPARE(stack.legendKinds(), QStringList({"weights", "KV cache", "experts"}));
    plan.gpus[0].use.projector = 600 * MiB;
    plan.ram.use.compute = 40 * MiB;
    stack.show(&plan, nullptr);
    QCOMPARE(stack.legendKinds(), QStringList({"weights", "KV cache", "vision projector", "experts", "compute"}));
    stack.show(nullptr, nullptr);
    QVERIFY(stack.legendKinds().isEmpty());
}

QTEST_MAIN(TestGaugeBar)
#include "tst_gaugebar.moc"
