#include "offloadpanel.h"

#include "plantargets.h"

#include "loadedmodel.h"
#include "errortext.h"
#include "gaugestack.h"
#include "offloadcontroller.h"
#include "offloadtexts.h"
#include "plansummary.h"
#include "profiledialog.h"
#include "settingsform.h"
#include "units.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

using namespace shoehorn;


OffloadPanel::OffloadPanel(OffloadController *offload, LoadedModel *model, TuningController *tuning,
                           QWidget *parent)
    : QDockWidget(tr("Offload"), parent), m_model(model), m_tuning(tuning), m_offload(offload)
{
    setObjectName(QStringLiteral("offloadPanel"));
    buildUi();
    rebuildTargets();
    connect(m_offload, &OffloadController::modelChanged, this, &OffloadPanel::onModelChanged);
    connect(m_offload, &OffloadController::settingsChanged, this, [this] { toWidgets(m_offload->settings()); });
    connect(m_offload, &OffloadController::planChanged, this, &OffloadPanel::showPlan);
    connect(m_offload, &OffloadController::exactCheckChanged, this, &OffloadPanel::updateSummary);
    connect(m_offload, &OffloadController::fittingChanged, this, [this] {
        m_fitButton->setEnabled(m_offload->info().has_value() && !m_offload->fitting());
        m_fitButton->setText(m_offload->fitting() ? tr("Fitting…") : tr("Auto-fit"));
    });
    toWidgets(m_offload->settings());
    onModelChanged();
}

void OffloadPanel::connectWidgets()
{
    connect(m_form, &SettingsForm::edited, this, &OffloadPanel::settingsEdited);
    connect(m_target, &QComboBox::currentIndexChanged, m_offload->targets(), &PlanTargets::setIndex);
    connect(m_vramBudget, &QSpinBox::valueChanged, m_offload->targets(), &PlanTargets::setVramBudgetMiB);
    connect(m_offload->targets(), &PlanTargets::targetChanged, this, &OffloadPanel::targetChanged);
    connect(m_offload->targets(), &PlanTargets::targetChanged, this,
            [this] { showBackends(QString::fromStdString(m_offload->settings().load.backend)); });
    connect(m_margin, &QSpinBox::valueChanged, m_offload, &OffloadController::setMarginMiB);
}

void OffloadPanel::showEvent(QShowEvent *event)
{
    QDockWidget::showEvent(event);
    m_offload->targets()->watchHardware(true); // free memory changes as other programs come and go
}

void OffloadPanel::hideEvent(QHideEvent *event)
{
    m_offload->targets()->watchHardware(false);
    QDockWidget::hideEvent(event);
}

void OffloadPanel::rebuildTargets()
{
    const QSignalBlocker block(m_target);
    const int current = m_target->currentIndex();
    m_target->clear();
    m_target->addItem(tr("This computer"));
    for (const auto &[id, name] : m_offload->targets()->profiles())
        m_target->addItem(name, id);
    m_target->setCurrentIndex(std::max(0, std::min(current, m_target->count() - 1)));
}

void OffloadPanel::addCustomProfile(const HardwareProfile &profile)
{
    const int index = m_offload->targets()->addCustomProfile(profile);
    rebuildTargets();
    m_target->setCurrentIndex(index);
}

void OffloadPanel::addProfileDialog()
{
    ProfileDialog::ask(this, [this](const HardwareProfile &p) { addCustomProfile(p); });
}

PlanTarget OffloadPanel::currentTarget() const
{
    return m_offload->targets()->current();
}

const MemoryPlan &OffloadPanel::plan() const
{
    return m_offload->plan();
}

QString OffloadPanel::modelPath() const
{
    return m_offload->modelPath();
}

bool OffloadPanel::hasModelInfo() const
{
    return m_offload->info().has_value();
}

bool OffloadPanel::exactCheckRunning() const
{
    return m_offload->exactCheckRunning();
}

void OffloadPanel::setModelPath(const QString &path)
{
    m_offload->setModelPath(path);
}

void OffloadPanel::onModelChanged()
{
    const auto &info = m_offload->info();
    m_form->setModel(info ? &*info : nullptr);
    m_loadButton->setEnabled(info.has_value());
    m_fitButton->setEnabled(info.has_value() && !m_offload->fitting());
    toWidgets(m_offload->settings());
    updateLabels();
}

ModelSettings OffloadPanel::fromWidgets() const
{
    return m_form->settings(m_offload->settings());
}

void OffloadPanel::toWidgets(const ModelSettings &s)
{
    m_updating = true;
    m_form->setSettings(s);
    showBackends(QString::fromStdString(s.load.backend));
    m_updating = false;
    showPlan();
}

void OffloadPanel::settingsEdited()
{
    if (!m_updating)
        m_offload->setSettings(fromWidgets());
}

void OffloadPanel::showBackends(const QString &chosen)
{
    QList<BackendPicker::Choice> choices;
    for (const auto &c : m_offload->backendChoices())
        choices << BackendPicker::Choice{c.backend, c.devices};
    m_form->setBackendChoices(chosen, choices);
}

void OffloadPanel::showPlan()
{
    if (m_updating)
        return;
    updateGauges();
    updateLabels();
    // Planning a what-if machine, the button still loads here: it says so.
    const bool here = m_offload->targets()->isThisComputer();
    m_loadButton->setText(m_offload->isLoadedModel() ? (here ? tr("Reload") : tr("Reload on this computer"))
                                                     : (here ? tr("Load") : tr("Load on this computer")));
}

QString OffloadPanel::exactText() const
{
    return m_summary->texts().exact;
}

QString OffloadPanel::explanation() const
{
    return m_summary->texts().explanation;
}

QString OffloadPanel::verdict() const
{
    return m_summary->texts().verdict;
}

QString OffloadPanel::verified() const
{
    return m_summary->texts().verified;
}

void OffloadPanel::updateGauges()
{
    m_gaugeStack->show(m_offload->info() ? &m_offload->plan() : nullptr, m_offload->measured());
    updateSummary();
}

void OffloadPanel::updateSummary()
{
    m_summary->show(OffloadTexts::summary(*m_offload));
}

void OffloadPanel::updateLabels()
{
    const auto &info = m_offload->info();
    if (info) {
        const auto &m = *info;
        QString text = QStringLiteral("<b>%1</b><br>%2 · %3 · %4 · %5")
                           .arg(QString::fromStdString(m.name.empty() ? QFileInfo(modelPath()).fileName().toStdString()
                                                                      : m.name)
                                    .toHtmlEscaped(),
                                QString::fromStdString(m.architecture), QString::fromStdString(m.fileTypeName),
                                bytesText(m.fileSize), tr("%n layer(s)", "", int(m.layerCount)));
        if (m.isMoe())
            text += QStringLiteral(" · ") + tr("%1 experts, %2 active").arg(m.expertCount).arg(m.expertUsedCount);
        m_modelLabel->setText(text);
    } else if (m_offload->inspecting()) {
        m_modelLabel->setText(tr("Reading %1…").arg(QFileInfo(modelPath()).fileName().toHtmlEscaped()));
    } else if (m_offload->inspectError()) {
        m_modelLabel->setText(tr("%1 cannot be read: %2")
                                  .arg(QFileInfo(modelPath()).fileName(), ErrorText::message(m_offload->inspectError()))
                                  .toHtmlEscaped());
    } else {
        m_modelLabel->setText(tr("No model selected."));
    }
}

void OffloadPanel::autoFit()
{
    m_offload->autoFit();
}

void OffloadPanel::loadOrReload()
{
    m_offload->setSettings(fromWidgets());
    m_offload->loadOrReload();
}

QString OffloadPanel::llamaServerCommand() const
{
    return m_offload->llamaServerCommand();
}

void OffloadPanel::copyCommand()
{
    QApplication::clipboard()->setText(llamaServerCommand());
    emit copied(tr("The llama-server command is on the clipboard."));
}
