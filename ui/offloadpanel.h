#pragma once

#include "autofit.h"
#include "hardware.h"
#include "modelinfo.h"
#include "modelsettings.h"

#include <QDockWidget>
#include <QFutureWatcher>

#include <optional>

class ChatController;
class GaugeBar;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QVBoxLayout;
struct ModelSummary;

// See what fits before loading: sliders for llama.cpp's placement and context settings, a
// memory gauge per GPU and for RAM that follows them live, Auto-fit, and Load/Reload.
class OffloadPanel : public QDockWidget
{
    Q_OBJECT
public:
    explicit OffloadPanel(ChatController *controller, QWidget *parent = nullptr);

    // The model the panel plans for (the loaded one, or one picked in the model browser).
    void setModelPath(const QString &path);
    QString modelPath() const { return m_path; }
    const shoehorn::MemoryPlan &plan() const { return m_plan; }
    QString explanation() const;
    QString llamaServerCommand() const;
    shoehorn::PlanTarget currentTarget() const;
    // llama.cpp's own dry run for the current settings on this computer, run in the
    // background a moment after the sliders stop moving.
    struct ExactCheck {
        bool ok = false;
        shoehorn::MemoryPlan plan;
        QString error;
    };
    QString exactText() const;
    bool exactCheckRunning() const { return m_exactWatcher.isRunning(); }
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
    void refreshHardware();
    void rebuildTargets();
    ModelSettings fromWidgets() const;
    void toWidgets(const ModelSettings &s);
    void replan();
    void settingsEdited();
    void updateGauges();
    void updateLabels();
    void onModelLoaded(const ModelSummary &summary);
    void startExactCheck();
    void showExactCheck();
    uint32_t contextAt(int position) const;
    int positionOfContext(uint32_t ctx) const;

    ChatController *m_controller;
    QString m_path;
    std::optional<shoehorn::ModelInfo> m_info;
    shoehorn::HardwareInfo m_hw;
    shoehorn::MemoryPlan m_plan;
    shoehorn::MemoryPlan m_measured; // after loading this model, else empty
    bool m_hasMeasured = false;
    std::optional<shoehorn::FitResult> m_lastFit;
    QList<uint32_t> m_contextStops;
    bool m_updating = false;

    QLabel *m_modelLabel = nullptr;
    QLabel *m_hardwareLabel = nullptr;
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
    QComboBox *m_loadMode = nullptr;
    QVBoxLayout *m_gaugeBox = nullptr;
    QList<GaugeBar *> m_gauges;
    QLabel *m_explanation = nullptr;
    QPushButton *m_fitButton = nullptr;
    QPushButton *m_loadButton = nullptr;
    QTimer *m_refresh = nullptr;
    QTimer *m_exactDelay = nullptr;
    QLabel *m_exactLabel = nullptr;
    QFutureWatcher<ExactCheck> m_exactWatcher;
    bool m_exactAgain = false;
};
