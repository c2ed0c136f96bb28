// The offload panel's widgets, built once: the machine to plan for, the settings (SettingsForm),
// the plan's summary and the buttons. (What they do: offloadpanel.cpp.)
#include "offloadpanel.h"

#include "gaugestack.h"
#include "loadedmodel.h"
#include "offloadcontroller.h"
#include "panelscroll.h"
#include "plansummary.h"
#include "settingsform.h"
#include "tuningdialog.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace shoehorn;


void OffloadPanel::buildUi()
{
    auto *body = new QWidget(this);
    auto *outer = new QVBoxLayout(body);
    // Compact: the whole panel fits a 1366x768 screen without scrolling.
    outer->setContentsMargins(6, 4, 6, 4);
    outer->setSpacing(4);

    m_modelLabel = new QLabel(body);
    m_modelLabel->setObjectName(QStringLiteral("offloadModelLabel"));
    m_modelLabel->setWordWrap(true);
    outer->addWidget(m_modelLabel);
    buildTargetForm(body, outer);
    m_form = new SettingsForm(body);
    outer->addWidget(m_form);
    m_gaugeStack = new GaugeStack(body);
    outer->addWidget(m_gaugeStack);
    buildResultsAndButtons(body, outer);
    outer->addStretch(1);
    setWidget(PanelScroll::create(body, this));
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
    m_vramBudget->setKeyboardTracking(false); // a number typed out is one plan, not one per key
    m_vramBudget->setObjectName(QStringLiteral("vramBudget"));
    m_vramBudget->setRange(0, 1024 * 1024);
    m_vramBudget->setSingleStep(512);
    m_vramBudget->setSuffix(tr(" MiB"));
    m_vramBudget->setSpecialValueText(tr("whole card"));
    m_vramBudget->setToolTip(tr("Use at most this much of each GPU, as if the card were smaller."));
    m_margin = new QSpinBox(body);
    m_margin->setKeyboardTracking(false);
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

void OffloadPanel::buildResultsAndButtons(QWidget *body, QVBoxLayout *outer)
{
    // The buttons before the sentences: the verdict's length and Details opening move nothing
    // under the pointer, and Auto-fit's answer reads below the button that asked.
    buildButtons(body, outer);
    m_summary = new PlanSummary(body);
    m_summary->setObjectName(QStringLiteral("planSummary"));
    outer->addWidget(m_summary);
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
