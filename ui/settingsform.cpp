#include "settingsform.h"

#include "modelinfo.h"
#include "speculationpicker.h"
#include "units.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QThread>

using namespace shoehorn;

namespace {
QCheckBox *lockBox(QWidget *parent, const QString &name)
{
    auto *b = new QCheckBox(SettingsForm::tr("Lock"), parent);
    b->setObjectName(name);
    b->setToolTip(SettingsForm::tr("Auto-fit keeps a locked value as it is."));
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

SettingsForm::SettingsForm(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("settingsForm"));
    build();
    connectWidgets();
    setModel(nullptr);
}

void SettingsForm::build()
{
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    int row = 0;
    addSliderRows(grid, row);
    addKvRows(grid, row);
    addOtherRows(grid, row);
    grid->setColumnStretch(1, 1);
    grid->setVerticalSpacing(4);
}

void SettingsForm::addSliderRows(QGridLayout *grid, int &row)
{
    auto addSlider = [&](const QString &label, const QString &name, QSlider *&slider, QLabel *&value,
                         QCheckBox *lock) {
        auto *l = new QLabel(label, this);
        slider = new QSlider(Qt::Horizontal, this);
        slider->setObjectName(name);
        value = new QLabel(this);
        value->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("128k/128")));
        grid->addWidget(l, row, 0);
        grid->addWidget(slider, row, 1);
        grid->addWidget(value, row, 2);
        grid->addWidget(lock, row, 3);
        ++row;
        return l;
    };
    m_lockGpuLayers = lockBox(this, QStringLiteral("lockGpuLayers"));
    addSlider(tr("GPU layers"), QStringLiteral("gpuLayers"), m_gpuLayers, m_gpuLayersValue, m_lockGpuLayers);
    m_lockCpuMoe = lockBox(this, QStringLiteral("lockCpuMoe"));
    QLabel *moeLabel = addSlider(tr("Experts on CPU"), QStringLiteral("cpuMoe"), m_cpuMoe, m_cpuMoeValue, m_lockCpuMoe);
    m_cpuMoe->setToolTip(tr("Keep the expert weights of the first N layers in RAM (--n-cpu-moe)."));
    m_moeRow = {moeLabel, m_cpuMoe, m_cpuMoeValue, m_lockCpuMoe};
    m_lockContext = lockBox(this, QStringLiteral("lockContext"));
    addSlider(tr("Context"), QStringLiteral("contextSize"), m_context, m_contextValue, m_lockContext);
}

// The KV cache's types (K, V, their lock) and the warning under them.
void SettingsForm::addKvRows(QGridLayout *grid, int &row)
{
    m_typeK = combo(this, QStringLiteral("typeK"), {"f16", "q8_0", "q4_0"});
    m_typeV = combo(this, QStringLiteral("typeV"), {"f16", "q8_0", "q4_0"});
    m_lockKv = lockBox(this, QStringLiteral("lockKv"));
    auto *kvRow = new QHBoxLayout;
    kvRow->addWidget(new QLabel(tr("K"), this));
    kvRow->addWidget(m_typeK);
    kvRow->addWidget(new QLabel(tr("V"), this));
    kvRow->addWidget(m_typeV);
    grid->addWidget(new QLabel(tr("KV cache"), this), row, 0);
    grid->addLayout(kvRow, row, 1, 1, 2);
    grid->addWidget(m_lockKv, row, 3);
    ++row;
    m_kvWarning = new QLabel(tr("q4_0 for K lowers answer quality noticeably; prefer q8_0."), this);
    m_kvWarning->setObjectName(QStringLiteral("kvWarning"));
    m_kvWarning->setWordWrap(true);
    m_kvWarning->setStyleSheet(QStringLiteral("color: #b45309;"));
    grid->addWidget(m_kvWarning, row++, 1, 1, 3);
}

void SettingsForm::addOtherRows(QGridLayout *grid, int &row)
{
    m_flash = combo(this, QStringLiteral("flashAttention"), {tr("auto"), tr("on"), tr("off")});
    m_threads = new QSpinBox(this);
    m_threads->setKeyboardTracking(false); // 12 typed is 12, not 1 (a plan and a warning) first
    m_threads->setObjectName(QStringLiteral("threads"));
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("auto"));
    m_threads->setToolTip(tr("CPU threads; auto: one per physical core (-t)."));
    auto *flashRow = new QHBoxLayout;
    flashRow->addWidget(m_flash, 1);
    flashRow->addWidget(new QLabel(tr("Threads"), this));
    flashRow->addWidget(m_threads, 1);
    grid->addWidget(new QLabel(tr("Flash attention"), this), row, 0);
    grid->addLayout(flashRow, row++, 1, 1, 3);
    // Past the CPU threads this process may use (Qt reads its affinity), llama.cpp's threads take
    // turns on the cores and each step waits for the last: on 2 CPU threads, -t 4 gave 2.2
    // tokens/s where -t 2 gave 4147 (the CLI warns the same, threadsWarning()).
    m_threadsWarning = new QLabel(this);
    m_threadsWarning->setObjectName(QStringLiteral("threadsWarning"));
    m_threadsWarning->setWordWrap(true);
    m_threadsWarning->setStyleSheet(QStringLiteral("color: #b45309;"));
    grid->addWidget(m_threadsWarning, row++, 1, 1, 3);
    m_batch = combo(this, QStringLiteral("batchSize"), {"256", "512", "1024", "2048", "4096"});
    m_ubatch = combo(this, QStringLiteral("ubatchSize"), {"64", "128", "256", "512", "1024", "2048"});
    auto *batchRow = new QHBoxLayout;
    batchRow->addWidget(m_batch);
    batchRow->addWidget(new QLabel(tr("micro-batch"), this));
    batchRow->addWidget(m_ubatch);
    grid->addWidget(new QLabel(tr("Batch"), this), row, 0);
    grid->addLayout(batchRow, row++, 1, 1, 3);
    m_loadMode = combo(this, QStringLiteral("loadMode"), {tr("mmap"), tr("no mmap"), tr("mlock")});
    m_loadMode->setToolTip(tr("mmap maps the file (its pages count as RAM); no mmap reads it into memory; "
                              "mlock keeps it from being swapped out."));
    grid->addWidget(new QLabel(tr("Loading"), this), row, 0);
    grid->addWidget(m_loadMode, row++, 1, 1, 2);
    m_speculation = new SpeculationPicker(this);
    grid->addWidget(new QLabel(tr("Speculative"), this), row, 0);
    grid->addWidget(m_speculation, row++, 1, 1, 3);
    m_backend = new BackendPicker(this);
    m_backendLabel = new QLabel(tr("GPU backend"), this);
    grid->addWidget(m_backendLabel, row, 0);
    grid->addWidget(m_backend, row++, 1, 1, 3);
}

void SettingsForm::connectWidgets()
{
    for (QSlider *s : {m_gpuLayers, m_cpuMoe, m_context})
        connect(s, &QSlider::valueChanged, this, &SettingsForm::onEdited);
    for (QComboBox *c : {m_typeK, m_typeV, m_flash, m_batch, m_ubatch, m_loadMode})
        connect(c, &QComboBox::currentIndexChanged, this, &SettingsForm::onEdited);
    for (QCheckBox *c : {m_lockGpuLayers, m_lockCpuMoe, m_lockContext, m_lockKv})
        connect(c, &QCheckBox::toggled, this, &SettingsForm::onEdited);
    connect(m_threads, &QSpinBox::valueChanged, this, &SettingsForm::onEdited);
    connect(m_speculation, &SpeculationPicker::edited, this, &SettingsForm::onEdited);
    connect(m_backend, &BackendPicker::edited, this, &SettingsForm::onEdited);
}

void SettingsForm::onEdited()
{
    if (m_updating)
        return; // setSettings shows the values once, at its end
    showValues();
    emit edited();
}

void SettingsForm::setModel(const ModelInfo *info)
{
    m_layers = info ? int(info->layerCount) : 0;
    m_moe = info && info->isMoe();
    {
        const QSignalBlocker blockA(m_gpuLayers), blockB(m_cpuMoe), blockC(m_context);
        m_gpuLayers->setRange(0, m_layers + 1);
        m_cpuMoe->setRange(0, m_layers);
        m_contextStops.clear();
        const uint32_t trained = info && info->contextLength ? info->contextLength : 131072;
        for (uint32_t c = 512; c < trained; c *= 2)
            m_contextStops << c;
        m_contextStops << trained;
        m_context->setRange(0, int(m_contextStops.size()) - 1);
        m_context->setPageStep(1);
    }
    for (QWidget *w : m_moeRow)
        w->setVisible(m_moe);
    m_speculation->setModelHasMtp(info && info->mtpLayers > 0);
    for (QWidget *w : std::initializer_list<QWidget *>{m_gpuLayers, m_cpuMoe, m_context, m_typeK, m_typeV, m_flash,
                                                       m_threads, m_batch, m_ubatch, m_loadMode, m_speculation})
        w->setEnabled(info != nullptr);
    showValues();
}

uint32_t SettingsForm::contextAt(int position) const
{
    return m_contextStops.isEmpty() ? 4096 : m_contextStops.value(std::clamp(position, 0, int(m_contextStops.size()) - 1));
}

int SettingsForm::positionOfContext(uint32_t ctx) const
{
    for (int i = 0; i < m_contextStops.size(); ++i)
        if (m_contextStops[i] >= ctx)
            return i;
    return int(m_contextStops.size()) - 1;
}

ModelSettings SettingsForm::settings(const ModelSettings &base) const
{
    ModelSettings s = base;
    s.load.gpuLayers = m_gpuLayers->value() >= m_layers + 1 ? -1 : m_gpuLayers->value();
    s.load.cpuMoeLayers = m_moe ? m_cpuMoe->value() : 0;
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

void SettingsForm::setSettings(const ModelSettings &s)
{
    m_updating = true;
    m_gpuLayers->setValue(s.load.gpuLayers < 0 ? m_layers + 1 : s.load.gpuLayers);
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
    m_backend->setBackend(QString::fromStdString(s.load.backend));
    m_lockGpuLayers->setChecked(s.locks.gpuLayers);
    m_lockCpuMoe->setChecked(s.locks.cpuMoeLayers);
    m_lockContext->setChecked(s.locks.contextSize);
    m_lockKv->setChecked(s.locks.kvType);
    m_updating = false;
    showValues();
}

void SettingsForm::setBackendChoices(const QString &chosen, const QList<BackendPicker::Choice> &choices)
{
    m_backend->setBackend(chosen);
    m_backend->setChoices(choices);
    m_backend->setVisible(m_backend->hasChoice());
    m_backendLabel->setVisible(m_backend->hasChoice());
}

// The numbers beside the sliders, and the warnings under the KV types and the threads.
void SettingsForm::showValues()
{
    m_gpuLayersValue->setText(QStringLiteral("%1/%2").arg(m_gpuLayers->value()).arg(m_gpuLayers->maximum()));
    m_cpuMoeValue->setText(QString::number(m_cpuMoe->value()));
    m_contextValue->setText(contextText(contextAt(m_context->value())));
    m_kvWarning->setVisible(m_typeK->currentText() == QLatin1String("q4_0"));
    const int cpus = QThread::idealThreadCount();
    m_threadsWarning->setVisible(m_threads->isEnabledTo(this) && m_threads->value() > cpus); // not without a model
    m_threadsWarning->setText(tr("More threads than the %n CPU thread(s) this computer runs at once: llama.cpp's "
                                 "threads take turns, and every token waits for the last of them (many times "
                                 "slower). Leave it on auto for one per core.", nullptr, cpus));
}
