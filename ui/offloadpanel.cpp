#include "offloadpanel.h"

#include "plantargets.h"

#include "loadedmodel.h"
#include "errortext.h"
#include "gaugestack.h"
#include "offloadcontroller.h"
#include "offloadtexts.h"
#include "plansummary.h"
#include "profiledialog.h"
#include "backendpicker.h"
#include "speculationpicker.h"
#include "tuningdialog.h"
#include "units.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
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
    toWidgets(m_offload->settings());
    onModelChanged();
}

void OffloadPanel::connectWidgets()
{
    for (QSlider *s : {m_gpuLayers, m_cpuMoe, m_context})
        connect(s, &QSlider::valueChanged, this, &OffloadPanel::settingsEdited);
    for (QComboBox *c : {m_typeK, m_typeV, m_flash, m_batch, m_ubatch, m_loadMode})
        connect(c, &QComboBox::currentIndexChanged, this, &OffloadPanel::settingsEdited);
    for (QCheckBox *c : {m_lockGpuLayers, m_lockCpuMoe, m_lockContext, m_lockKv})
        connect(c, &QCheckBox::toggled, this, &OffloadPanel::settingsEdited);
    connect(m_threads, &QSpinBox::valueChanged, this, &OffloadPanel::settingsEdited);
    connect(m_speculation, &SpeculationPicker::edited, this, &OffloadPanel::settingsEdited);
    connect(m_backend, &BackendPicker::edited, this, &OffloadPanel::settingsEdited);
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

uint32_t OffloadPanel::contextAt(int position) const
{
    return m_contextStops.isEmpty() ? 4096 : m_contextStops.value(std::clamp(position, 0, int(m_contextStops.size()) - 1));
}

int OffloadPanel::positionOfContext(uint32_t ctx) const
{
    for (int i = 0; i < m_contextStops.size(); ++i)
        if (m_contextStops[i] >= ctx)
            return i;
    return int(m_contextStops.size()) - 1;
}

void OffloadPanel::setModelPath(const QString &path)
{
    m_offload->setModelPath(path);
}

void OffloadPanel::onModelChanged()
{
    const auto &info = m_offload->info();
    // Slider ranges follow the model: 0..layers+1 GPU layers, 0..layers expert layers, and a
    // log-scale context from 512 to the trained length with stops at each power of two.
    const int layers = info ? int(info->layerCount) : 0;
    {
        const QSignalBlocker blockA(m_gpuLayers), blockB(m_cpuMoe), blockC(m_context);
        m_gpuLayers->setRange(0, layers + 1);
        m_cpuMoe->setRange(0, layers);
        m_contextStops.clear();
        const uint32_t trained = info && info->contextLength ? info->contextLength : 131072;
        for (uint32_t c = 512; c < trained; c *= 2)
            m_contextStops << c;
        m_contextStops << trained;
        m_context->setRange(0, int(m_contextStops.size()) - 1);
        m_context->setPageStep(1);
    }
    for (QWidget *w : m_moeRow)
        w->setVisible(info && info->isMoe());
    m_speculation->setModelHasMtp(info && info->mtpLayers > 0);
    for (QWidget *w : std::initializer_list<QWidget *>{m_gpuLayers, m_cpuMoe, m_context, m_typeK, m_typeV, m_flash,
                                                       m_threads, m_batch, m_ubatch, m_loadMode, m_loadButton,
                                                       m_fitButton, m_speculation})
        w->setEnabled(info.has_value());
    toWidgets(m_offload->settings());
    updateLabels();
}

ModelSettings OffloadPanel::fromWidgets() const
{
    ModelSettings s = m_offload->settings();
    const auto &info = m_offload->info();
    const int layers = info ? int(info->layerCount) : 0;
    s.load.gpuLayers = m_gpuLayers->value() >= layers + 1 ? -1 : m_gpuLayers->value();
    s.load.cpuMoeLayers = info && info->isMoe() ? m_cpuMoe->value() : 0;
    s.load.loadMode = LoadMode(m_loadMode->currentIndex());
    s.context.contextSize = contextAt(m_context->value());
    s.context.typeK = m_typeK->currentText().toStdString();
    s.context.typeV = m_typeV->currentText().toStdString();
    s.context.flashAttention = FlashAttention(m_flash->currentIndex());
    s.context.threads = m_threads->value();
    s.context.batchSize = m_batch->currentText().toUInt();
    s.context.ubatchSize = m_ubatch->currentText().toUInt();
    s.context.speculation = m_speculation->settings();
    s.speculationAuto = m_speculation->isAuto();
    s.load.mtpLayers = s.context.speculation.mtp();
    s.load.backend = m_backend->backend().toStdString();
    s.locks = {m_lockGpuLayers->isChecked(), m_lockCpuMoe->isChecked(), m_lockContext->isChecked(),
               m_lockKv->isChecked()};
    return s;
}

void OffloadPanel::toWidgets(const ModelSettings &s)
{
    m_updating = true;
    const auto &info = m_offload->info();
    const int layers = info ? int(info->layerCount) : 0;
    m_gpuLayers->setValue(s.load.gpuLayers < 0 ? layers + 1 : s.load.gpuLayers);
    m_cpuMoe->setValue(s.load.cpuMoeLayers);
    m_context->setValue(positionOfContext(s.context.contextSize ? s.context.contextSize : 4096));
    m_typeK->setCurrentText(QString::fromStdString(s.context.typeK));
    m_typeV->setCurrentText(QString::fromStdString(s.context.typeV));
    m_flash->setCurrentIndex(int(s.context.flashAttention));
    m_threads->setValue(s.context.threads);
    m_batch->setCurrentText(QString::number(s.context.batchSize));
    m_ubatch->setCurrentText(QString::number(s.context.ubatchSize));
    m_loadMode->setCurrentIndex(int(s.load.loadMode));
    m_speculation->setSettings(s.context.speculation, s.speculationAuto);
    showBackends(QString::fromStdString(s.load.backend));
    m_lockGpuLayers->setChecked(s.locks.gpuLayers);
    m_lockCpuMoe->setChecked(s.locks.cpuMoeLayers);
    m_lockContext->setChecked(s.locks.contextSize);
    m_lockKv->setChecked(s.locks.kvType);
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
    m_backend->setBackend(chosen);
    m_backend->setChoices(choices);
    m_backend->setVisible(m_backend->hasChoice());
    m_backendLabel->setVisible(m_backend->hasChoice());
}

void OffloadPanel::showPlan()
{
    if (m_updating)
        return;
    const ModelSettings s = m_offload->settings();
    m_gpuLayersValue->setText(QStringLiteral("%1/%2").arg(m_gpuLayers->value()).arg(m_gpuLayers->maximum()));
    m_cpuMoeValue->setText(QString::number(m_cpuMoe->value()));
    m_contextValue->setText(contextText(s.context.contextSize));
    m_kvWarning->setVisible(s.context.typeK == "q4_0");
    updateGauges();
    updateLabels();
    m_loadButton->setText(m_offload->isLoadedModel() ? tr("Reload") : tr("Load"));
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
}
