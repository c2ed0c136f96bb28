// The offload panel's widgets, built once: the machine to plan for, the settings grid, the plan's
// summary and the buttons. (What they do: offloadpanel.cpp.)
#include "offloadpanel.h"

#include "backendpicker.h"
#include "loadedmodel.h"
#include "gaugestack.h"
#include "offloadcontroller.h"
#include "plansummary.h"
#include "speculationpicker.h"
#include "tuningdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace shoehorn;

namespace {
QCheckBox *lockBox(QWidget *parent, const QString &name)
{
    auto *b = new QCheckBox(OffloadPanel::tr("Lock"), parent);
    b->setObjectName(name);
    b->setToolTip(OffloadPanel::tr("Auto-fit keeps a locked value as it is."));
    return b;
}

QComboBox *combo(QWidget *parent, const QString &name, const QStringList &items)
{
    auto *c = new QComboBox(parent);
    c->setObjectName(name);
    c->addItems(items);
    return c;
}
} // namespace

void OffloadPanel::buildUi()
{
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *body = new QWidget(scroll);
    auto *outer = new QVBoxLayout(body);
    // Compact: the whole panel fits a 1366x768 screen without scrolling.
    outer->setContentsMargins(6, 4, 6, 4);
    outer->setSpacing(4);

    m_modelLabel = new QLabel(body);
    m_modelLabel->setObjectName(QStringLiteral("offloadModelLabel"));
    m_modelLabel->setWordWrap(true);
    outer->addWidget(m_modelLabel);
    buildTargetForm(body, outer);
    outer->addLayout(buildSettingsGrid(body));
    m_gaugeStack = new GaugeStack(body);
    outer->addWidget(m_gaugeStack);
    buildResultsAndButtons(body, outer);
    outer->addStretch(1);
    scroll->setWidget(body);
    setWidget(scroll);
    connectWidgets();
}

void OffloadPanel::buildTargetForm(QWidget *body, QVBoxLayout *outer)
{
    auto *targetForm = new QFormLayout;
    m_target = new QComboBox(body);
    m_target->setObjectName(QStringLiteral("planFor"));
    auto *addProfile = new QPushButton(tr("Add…"), body);
    addProfile->setObjectName(QStringLiteral("addProfileButton"));
    addProfile->setToolTip(tr("Add a what-if machine: a card and RAM size to plan for."));
    connect(addProfile, &QPushButton::clicked, this, &OffloadPanel::addProfileDialog);
    auto *targetRow = new QHBoxLayout;
    targetRow->addWidget(m_target, 1);
    targetRow->addWidget(addProfile);
    targetForm->addRow(tr("Plan for"), targetRow);
    m_vramBudget = new QSpinBox(body);
    m_vramBudget->setObjectName(QStringLiteral("vramBudget"));
    m_vramBudget->setRange(0, 1024 * 1024);
    m_vramBudget->setSingleStep(512);
    m_vramBudget->setSuffix(tr(" MiB"));
    m_vramBudget->setSpecialValueText(tr("whole card"));
    m_vramBudget->setToolTip(tr("Use at most this much of each GPU, as if the card were smaller."));
    m_margin = new QSpinBox(body);
    m_margin->setObjectName(QStringLiteral("fitMargin"));
    m_margin->setRange(0, 16384);
    m_margin->setSingleStep(128);
    m_margin->setValue(1024);
    m_margin->setSuffix(tr(" MiB"));
    m_margin->setToolTip(tr("Auto-fit leaves this much of every GPU free."));
    auto *budgetRow = new QHBoxLayout;
    budgetRow->addWidget(m_vramBudget, 1);
    budgetRow->addWidget(new QLabel(tr("Margin"), body));
    budgetRow->addWidget(m_margin, 1);
    targetForm->addRow(tr("VRAM budget"), budgetRow);
    outer->addLayout(targetForm);
}

// The KV cache's types (K, V, their lock) and the warning under them; returns the next row.
int OffloadPanel::addKvRows(QGridLayout *grid, QWidget *body, int row)
{
    m_typeK = combo(body, QStringLiteral("typeK"), {"f16", "q8_0", "q4_0"});
    m_typeV = combo(body, QStringLiteral("typeV"), {"f16", "q8_0", "q4_0"});
    m_lockKv = lockBox(body, QStringLiteral("lockKv"));
    auto *kvRow = new QHBoxLayout;
    kvRow->addWidget(new QLabel(tr("K"), body));
    kvRow->addWidget(m_typeK);
    kvRow->addWidget(new QLabel(tr("V"), body));
    kvRow->addWidget(m_typeV);
    grid->addWidget(new QLabel(tr("KV cache"), body), row, 0);
    grid->addLayout(kvRow, row, 1, 1, 2);
    grid->addWidget(m_lockKv, row, 3);
    ++row;
    m_kvWarning = new QLabel(tr("q4_0 for K lowers answer quality noticeably; prefer q8_0."), body);
    m_kvWarning->setObjectName(QStringLiteral("kvWarning"));
    m_kvWarning->setWordWrap(true);
    m_kvWarning->setStyleSheet(QStringLiteral("color: #b45309;"));
    grid->addWidget(m_kvWarning, row++, 1, 1, 3);
    return row;
}

QGridLayout *OffloadPanel::buildSettingsGrid(QWidget *body)
{
    auto *grid = new QGridLayout;
    int row = 0;
    auto addSlider = [&](const QString &label, const QString &name, QSlider *&slider, QLabel *&value,
                         QCheckBox *lock) {
        auto *l = new QLabel(label, body);
        slider = new QSlider(Qt::Horizontal, body);
        slider->setObjectName(name);
        value = new QLabel(body);
        value->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("128k/128")));
        grid->addWidget(l, row, 0);
        grid->addWidget(slider, row, 1);
        grid->addWidget(value, row, 2);
        if (lock)
            grid->addWidget(lock, row, 3);
        ++row;
        return l;
    };
    m_lockGpuLayers = lockBox(body, QStringLiteral("lockGpuLayers"));
    addSlider(tr("GPU layers"), QStringLiteral("gpuLayers"), m_gpuLayers, m_gpuLayersValue, m_lockGpuLayers);
    m_lockCpuMoe = lockBox(body, QStringLiteral("lockCpuMoe"));
    QLabel *moeLabel = addSlider(tr("Experts on CPU"), QStringLiteral("cpuMoe"), m_cpuMoe, m_cpuMoeValue, m_lockCpuMoe);
    m_cpuMoe->setToolTip(tr("Keep the expert weights of the first N layers in RAM (--n-cpu-moe)."));
    m_moeRow = {moeLabel, m_cpuMoe, m_cpuMoeValue, m_lockCpuMoe};
    m_lockContext = lockBox(body, QStringLiteral("lockContext"));
    addSlider(tr("Context"), QStringLiteral("contextSize"), m_context, m_contextValue, m_lockContext);

    row = addKvRows(grid, body, row);
    m_flash = combo(body, QStringLiteral("flashAttention"), {tr("auto"), tr("on"), tr("off")});
    m_threads = new QSpinBox(body);
    m_threads->setObjectName(QStringLiteral("threads"));
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("auto"));
    m_threads->setToolTip(tr("CPU threads; auto: one per physical core (-t)."));
    auto *flashRow = new QHBoxLayout;
    flashRow->addWidget(m_flash, 1);
    flashRow->addWidget(new QLabel(tr("Threads"), body));
    flashRow->addWidget(m_threads, 1);
    grid->addWidget(new QLabel(tr("Flash attention"), body), row, 0);
    grid->addLayout(flashRow, row++, 1, 1, 3);
    m_batch = combo(body, QStringLiteral("batchSize"), {"256", "512", "1024", "2048", "4096"});
    m_ubatch = combo(body, QStringLiteral("ubatchSize"), {"64", "128", "256", "512", "1024", "2048"});
    auto *batchRow = new QHBoxLayout;
    batchRow->addWidget(m_batch);
    batchRow->addWidget(new QLabel(tr("micro-batch"), body));
    batchRow->addWidget(m_ubatch);
    grid->addWidget(new QLabel(tr("Batch"), body), row, 0);
    grid->addLayout(batchRow, row++, 1, 1, 3);
    m_loadMode = combo(body, QStringLiteral("loadMode"), {tr("mmap"), tr("no mmap"), tr("mlock")});
    m_loadMode->setToolTip(tr("mmap maps the file (its pages count as RAM); no mmap reads it into memory; "
                              "mlock keeps it from being swapped out."));
    grid->addWidget(new QLabel(tr("Loading"), body), row, 0);
    grid->addWidget(m_loadMode, row++, 1, 1, 2);
    m_speculation = new SpeculationPicker(body);
    grid->addWidget(new QLabel(tr("Speculative"), body), row, 0);
    grid->addWidget(m_speculation, row++, 1, 1, 3);
    m_backend = new BackendPicker(body);
    m_backendLabel = new QLabel(tr("GPU backend"), body);
    grid->addWidget(m_backendLabel, row, 0);
    grid->addWidget(m_backend, row++, 1, 1, 3);
    grid->setColumnStretch(1, 1);
    grid->setVerticalSpacing(4);
    return grid;
}

void OffloadPanel::buildResultsAndButtons(QWidget *body, QVBoxLayout *outer)
{
    m_summary = new PlanSummary(body);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    outer->addWidget(m_summary);
    buildButtons(body, outer);
}

void OffloadPanel::buildButtons(QWidget *body, QVBoxLayout *outer)
{
    auto *buttons = new QGridLayout;
    m_fitButton = new QPushButton(tr("Auto-fit"), body);
    m_fitButton->setObjectName(QStringLiteral("autoFitButton"));
    m_fitButton->setToolTip(tr("Find the placement and context that fit the machine planned for."));
    m_loadButton = new QPushButton(tr("Load"), body);
    m_loadButton->setObjectName(QStringLiteral("loadButton"));
    auto *copy = new QPushButton(tr("Copy as llama-server command"), body);
    copy->setObjectName(QStringLiteral("copyCommandButton"));
    auto *tune = new QPushButton(tr("Auto-tune speed…"), body);
    tune->setObjectName(QStringLiteral("autoTuneButton"));
    tune->setToolTip(tr("Measure the configurations that fit this computer and keep the fastest."));
    buttons->addWidget(m_fitButton, 0, 0);
    buttons->addWidget(m_loadButton, 0, 1);
    buttons->addWidget(tune, 1, 0);
    buttons->addWidget(copy, 1, 1);
    outer->addLayout(buttons);
    connect(tune, &QPushButton::clicked, this, [this] {
        auto *dialog = new TuningDialog(m_model, m_tuning, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    connect(m_model, &LoadedModel::stateChanged, tune,
            [this, tune](LoadedModel::State st) { tune->setEnabled(st == LoadedModel::State::Ready); });
    tune->setEnabled(m_model->state() == LoadedModel::State::Ready);
    connect(m_fitButton, &QPushButton::clicked, this, &OffloadPanel::autoFit);
    connect(m_loadButton, &QPushButton::clicked, this, &OffloadPanel::loadOrReload);
    connect(copy, &QPushButton::clicked, this, &OffloadPanel::copyCommand);
}
