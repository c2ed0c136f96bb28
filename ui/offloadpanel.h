#pragma once

#include "hardware.h"
#include "modelsettings.h"
#include "planner.h"

#include <QDockWidget>

class LoadedModel;
class TuningController;
class OffloadController;
class GaugeStack;
class PlanSummary;
class QCheckBox;
class QComboBox;
class BackendPicker;
class SpeculationPicker;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QVBoxLayout;
struct ModelSummary;

// See what fits before loading: sliders for llama.cpp's placement and context settings, a
// memory gauge per GPU and for RAM that follows them live, Auto-fit, and Load/Reload. Widgets
// and wiring only: OffloadController plans, fits, runs the dry run and remembers.
class OffloadPanel : public QDockWidget
{
    Q_OBJECT
public:
    // `offload` plans; `model` is the loaded model (its state); `tuning` runs auto-tune.
    OffloadPanel(OffloadController *offload, LoadedModel *model, TuningController *tuning,
                 QWidget *parent = nullptr);

    // The model the panel plans for (the loaded one, or one picked in the model browser).
    void setModelPath(const QString &path);
    QString modelPath() const;
    bool hasModelInfo() const; // the model's GGUF has been read (it is read in the background)
    const shoehorn::MemoryPlan &plan() const;
    QString explanation() const; // the whole sentence, behind Details
    QString verdict() const;     // the one line under the gauges
    QString verified() const;    // the one line that says what checked the plan
    PlanSummary *summary() const { return m_summary; }
    QString llamaServerCommand() const;
    shoehorn::PlanTarget currentTarget() const;
    // llama.cpp's own dry run for the current settings on this computer, run by the
    // inference worker a moment after the sliders stop moving, in full.
    QString exactText() const;
    bool exactCheckRunning() const;
    // Adds a what-if machine to "Plan for" (and remembers it) and selects it.
    void addCustomProfile(const shoehorn::HardwareProfile &profile);

public slots:
    void autoFit();
    void addProfileDialog();
    void loadOrReload();
    void copyCommand();

signals:
    void targetChanged();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void buildUi();
    void buildTargetForm(QWidget *body, QVBoxLayout *outer);
    QGridLayout *buildSettingsGrid(QWidget *body);
    int addKvRows(QGridLayout *grid, QWidget *body, int row);
    void buildResultsAndButtons(QWidget *body, QVBoxLayout *outer);
    void buildButtons(QWidget *body, QVBoxLayout *outer);
    void connectWidgets();
    void rebuildTargets();
    ModelSettings fromWidgets() const;
    void toWidgets(const ModelSettings &s);
    void onModelChanged();
    void settingsEdited();
    void showPlan();
    void showBackends(const QString &chosen); // the GPU backend row, shown where a card is seen twice
    void updateGauges();
    void updateLabels();
    void updateSummary();
    uint32_t contextAt(int position) const;
    int positionOfContext(uint32_t ctx) const;

    LoadedModel *m_model;
    TuningController *m_tuning;
    OffloadController *m_offload;
    QList<uint32_t> m_contextStops;
    bool m_updating = false;

    QLabel *m_modelLabel = nullptr;
    QComboBox *m_target = nullptr;
    QSpinBox *m_vramBudget = nullptr;
    QSpinBox *m_margin = nullptr;
    QSlider *m_gpuLayers = nullptr;
    QLabel *m_gpuLayersValue = nullptr;
    QCheckBox *m_lockGpuLayers = nullptr;
    QSlider *m_cpuMoe = nullptr;
    QLabel *m_cpuMoeValue = nullptr;
    QCheckBox *m_lockCpuMoe = nullptr;
    QList<QWidget *> m_moeRow;
    QSlider *m_context = nullptr;
    QLabel *m_contextValue = nullptr;
    QCheckBox *m_lockContext = nullptr;
    QComboBox *m_typeK = nullptr;
    QComboBox *m_typeV = nullptr;
    QCheckBox *m_lockKv = nullptr;
    QLabel *m_kvWarning = nullptr;
    QComboBox *m_flash = nullptr;
    QSpinBox *m_threads = nullptr;
    QComboBox *m_batch = nullptr;
    QComboBox *m_ubatch = nullptr;
    SpeculationPicker *m_speculation = nullptr;
    BackendPicker *m_backend = nullptr;
    QLabel *m_backendLabel = nullptr;
    QComboBox *m_loadMode = nullptr;
    GaugeStack *m_gaugeStack = nullptr;
    PlanSummary *m_summary = nullptr;
    QPushButton *m_fitButton = nullptr;
    QPushButton *m_loadButton = nullptr;
};
