#include "tuningdialog.h"

#include "tuningcontroller.h"

#include "errortext.h"
#include "loadedmodel.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

using namespace shoehorn;

TuningDialog::TuningDialog(LoadedModel *model, TuningController *tuning, QWidget *parent)
    : QDialog(parent), m_model(model), m_tuning(tuning), m_status(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_table(new QTableWidget(this)), m_story(new QTableWidget(this)), m_chart(new QChart),
      m_run(new QPushButton(tr("Run auto-tune"), this)), m_cancel(new QPushButton(tr("Cancel"), this)),
      m_apply(new QPushButton(tr("Apply best"), this))
{
    setObjectName(QStringLiteral("tuningDialog"));
    setWindowTitle(tr("Auto-tune"));
    resize(980, 760);
    auto *layout = new QVBoxLayout(this);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    layout->addWidget(m_progress);

    m_table->setObjectName(QStringLiteral("tuneResults"));
    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels({tr("Configuration"), tr("Prompt t/s"), tr("Generation t/s"), tr("Note")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column = 1; column < 4; ++column) // "33120.0 ± 210.4" whole (it was cut)
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(m_table, 2);

    m_chart->setTitle(tr("Tokens per second per configuration"));
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    auto *view = new QChartView(m_chart, this);
    view->setObjectName(QStringLiteral("tuneChart"));
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    layout->addWidget(view, 3);

    auto *storyTitle = new QLabel(tr("How each step adds up"), this);
    QFont bold = storyTitle->font();
    bold.setBold(true);
    storyTitle->setFont(bold);
    layout->addWidget(storyTitle);
    m_story->setObjectName(QStringLiteral("tuneStory"));
    m_story->setColumnCount(4);
    m_story->setHorizontalHeaderLabels({tr("Step"), tr("Configuration"), tr("Generation t/s"), tr("Speed-up")});
    // The step's name whole (it was cut: "+ more layers (experts in …"); the configuration takes the rest.
    m_story->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_story->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_story->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_story->horizontalHeader()->setSectionResizeMode(3, QHeaderView::ResizeToContents);
    m_story->verticalHeader()->hide();
    m_story->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_story, 2);

    auto *buttons = new QHBoxLayout;
    m_run->setObjectName(QStringLiteral("runTuneButton"));
    m_cancel->setObjectName(QStringLiteral("cancelTuneButton"));
    m_apply->setObjectName(QStringLiteral("applyBestButton"));
    buttons->addWidget(m_run);
    buttons->addWidget(m_cancel);
    buttons->addStretch(1);
    buttons->addWidget(m_apply);
    layout->addLayout(buttons);

    connect(m_run, &QPushButton::clicked, this, &TuningDialog::run);
    connect(m_cancel, &QPushButton::clicked, m_tuning, &TuningController::cancel);
    connect(m_apply, &QPushButton::clicked, this, &TuningDialog::applyBest);
    connect(m_tuning, &TuningController::progress, this, &TuningDialog::onProgress);
    connect(m_tuning, &TuningController::finished, this, &TuningDialog::onFinished);
    connect(m_model, &LoadedModel::stateChanged, this, &TuningDialog::updateButtons);

    // Results of an earlier run on this machine come back.
    if (const std::optional<TuneReport> stored = m_tuning->stored()) {
        setReport(*stored);
        m_status->setText(tr("Results from %1. Run again after changing hardware or drivers.")
                              .arg(QLocale().toString(stored->when, QLocale::ShortFormat)));
    } else {
        m_status->setText(tr("Auto-tune measures short runs of the configurations that fit and keeps the fastest. "
                             "The model cannot chat meanwhile."));
    }
    m_progress->setVisible(false);
    updateButtons();
}

void TuningDialog::run()
{
    ModelSettings s = m_model->modelSettings();
    TuneRequest r;
    r.base = PlanSettings{s.load, s.context, 1};
    r.includeQ4K = true; // measured and shown, flagged as lower quality, never chosen as best
    if (const Error e = m_tuning->start(r)) {
        m_status->setText(ErrorText::message(e));
    } else {
        m_progress->setVisible(true);
        m_progress->setRange(0, 0);
        m_status->setText(tr("Measuring…"));
    }
    updateButtons();
}

void TuningDialog::onProgress(int done, int total, const QString &configuration)
{
    if (total > 0) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    }
    if (!configuration.isEmpty())
        m_status->setText(tr("Measuring %1").arg(configuration));
}

void TuningDialog::onFinished(const TuneReport &report)
{
    m_progress->setVisible(false);
    setReport(report);
    m_status->setText(report.result.cancelled ? tr("Cancelled: showing what was measured.")
                                              : tr("Done: %n configuration(s) measured.", "",
                                                   int(report.result.measurements.size())));
    updateButtons();
}

QString TuningDialog::stepName(const std::string &name) const
{
    if (name == "baseline") return tr("Baseline");
    if (name == "GPU layers") return tr("+ GPU layers");
    if (name == "q8_0 KV") return tr("+ q8_0 KV cache");
    if (name == "more layers") return tr("+ more layers (experts in RAM)");
    if (name == "flash attention + threads") return tr("+ flash attention and threads");
    if (name == "best") return tr("= the best found (Apply best)");
    return QString::fromStdString(name);
}

void TuningDialog::setReport(const TuneReport &report)
{
    m_report = report;
    const auto &ms = report.result.measurements;
    const std::string current =
        TuningStore::label(m_model->modelSettings().load, m_model->modelSettings().context);
    m_table->setRowCount(int(ms.size()));
    m_chart->removeAllSeries();
    for (QAbstractAxis *a : m_chart->axes()) {
        m_chart->removeAxis(a); // gives the axis back to us
        delete a;
    }
    auto *pp = new QBarSet(tr("prompt t/s"));
    auto *tg = new QBarSet(tr("generation t/s"));
    pp->setSelectedColor(QColor(0xf5, 0x9e, 0x0b));
    tg->setSelectedColor(QColor(0xdc, 0x26, 0x26));
    QStringList categories;
    for (int i = 0; i < int(ms.size()); ++i) {
        const auto &m = ms[size_t(i)];
        const bool best = i == report.result.best;
        const bool isCurrent = m.candidate.label == current;
        QString note;
        if (best)
            note = tr("best");
        if (isCurrent)
            note += (note.isEmpty() ? QString() : QStringLiteral(", ")) + tr("current");
        if (m.candidate.lowerQuality)
            note += (note.isEmpty() ? QString() : QStringLiteral(", ")) + tr("lower quality (q4_0 K)");
        if (!m.ok) // a table cell: the kind of failure, then llama.cpp's words
            note = (m.error.code == shoehorn::ErrorCode::OutOfMemory ? tr("does not fit: ") : QString()) +
                   QString::fromStdString(m.error.detail);
        auto *label = new QTableWidgetItem(QString::fromStdString(m.candidate.label));
        if (best) {
            QFont f = label->font();
            f.setBold(true);
            label->setFont(f);
        }
        m_table->setItem(i, 0, label);
        // A chat-path trial (speculation) measures generation only: no "0.0 ± 0.0" for its prompt.
        m_table->setItem(i, 1, new QTableWidgetItem(m.candidate.chatPath ? QStringLiteral("—")
                                                                         : QStringLiteral("%1 ± %2")
                                                                               .arg(m.prompt.mean, 0, 'f', 1)
                                                                               .arg(m.prompt.stddev, 0, 'f', 1)));
        m_table->setItem(i, 2, new QTableWidgetItem(QStringLiteral("%1 ± %2").arg(m.generate.mean, 0, 'f', 1)
                                                        .arg(m.generate.stddev, 0, 'f', 1)));
        m_table->setItem(i, 3, new QTableWidgetItem(note));
        pp->append(m.prompt.mean);
        tg->append(m.generate.mean);
        categories << (best ? QStringLiteral("★%1").arg(i + 1) : isCurrent ? QStringLiteral("•%1").arg(i + 1)
                                                                            : QString::number(i + 1));
        if (best || isCurrent) {
            pp->selectBar(i);
            tg->selectBar(i);
        }
    }
    auto *series = new QBarSeries;
    series->append(pp);
    series->append(tg);
    m_chart->addSeries(series);
    auto *x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(tr("configuration (★ best, • current)"));
    m_chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(x);
    auto *y = new QValueAxis;
    y->setTitleText(tr("tokens/s"));
    y->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(y);

    m_story->setRowCount(int(report.story.size()));
    for (int i = 0; i < int(report.story.size()); ++i) {
        const auto &s = report.story[size_t(i)];
        m_story->setItem(i, 0, new QTableWidgetItem(stepName(s.name)));
        m_story->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(s.measurement.candidate.label)));
        m_story->setItem(i, 2, new QTableWidgetItem(QString::number(s.measurement.generate.mean, 'f', 1)));
        m_story->setItem(i, 3, new QTableWidgetItem(QStringLiteral("×%1").arg(s.speedup, 0, 'f', 2)));
    }
    updateButtons();
}

QList<QBarSet *> TuningDialog::barSets() const
{
    const auto series = m_chart->series();
    if (series.isEmpty())
        return {};
    return static_cast<QBarSeries *>(series.first())->barSets();
}

void TuningDialog::applyBest()
{
    const auto &r = m_report.result;
    if (r.best < 0 || r.best >= int(r.measurements.size()))
        return;
    const PlanSettings &best = r.measurements[size_t(r.best)].candidate.settings;
    ModelSettings s = m_model->modelSettings();
    s.load.gpuLayers = best.load.gpuLayers;
    s.load.cpuMoeLayers = best.load.cpuMoeLayers;
    s.load.backend = best.load.backend; // for a card two backends see: the faster one
    s.context.threads = best.context.threads;
    s.context.ubatchSize = best.context.ubatchSize;
    s.context.flashAttention = best.context.flashAttention;
    s.context.typeK = best.context.typeK;
    s.context.typeV = best.context.typeV;
    // Speculation as measured: on where it paid beyond the noise, else off ("Auto" follows the
    // stored tuning by itself).
    if (!s.speculationAuto) {
        s.context.speculation = best.context.speculation;
        s.load.mtpLayers = best.load.mtpLayers;
    }
    m_model->setModelSettings(s);
    m_model->reload();
    m_status->setText(tr("Applied: %1").arg(QString::fromStdString(r.measurements[size_t(r.best)].candidate.label)));
}

void TuningDialog::updateButtons()
{
    const auto state = m_model->state();
    m_run->setEnabled(state == LoadedModel::State::Ready);
    m_cancel->setEnabled(state == LoadedModel::State::Tuning);
    m_apply->setEnabled(state == LoadedModel::State::Ready && m_report.result.best >= 0);
}
