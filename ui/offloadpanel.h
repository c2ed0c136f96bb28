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
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QVBoxLayout;
class SettingsForm;
struct ModelSummary;

// See what fits before loading: the machine to plan for, llama.cpp's settings (SettingsForm), a
// memory gauge per GPU and for RAM that follows them live, the plan's summary, Auto-fit, and
// Load/Reload. Widgets and wiring only: OffloadController plans, fits, runs the dry run and
// remembers.
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
    void copied(const QString &what); // Copy as llama-server command, in words

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void buildUi();
    void buildTargetForm(QWidget *body, QVBoxLayout *outer);
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

    LoadedModel *m_model;
    TuningController *m_tuning;
    OffloadController *m_offload;
    bool m_updating = false;

    QLabel *m_modelLabel = nullptr;
    QComboBox *m_target = nullptr;
    QSpinBox *m_vramBudget = nullptr;
    QSpinBox *m_margin = nullptr;
    SettingsForm *m_form = nullptr;
    GaugeStack *m_gaugeStack = nullptr;
    PlanSummary *m_summary = nullptr;
    QPushButton *m_fitButton = nullptr;
    QPushButton *m_loadButton = nullptr;
};
