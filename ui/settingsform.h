#pragma once

#include "backendpicker.h"
#include "modelsettings.h"

#include <QWidget>

#include <cstdint>

class SpeculationPicker;
class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
namespace shoehorn {
struct ModelInfo;
}

// llama.cpp's settings for one model as widgets: GPU layers, experts on the CPU and context
// (sliders, each with its Auto-fit lock), the KV cache's types, flash attention and threads,
// batch sizes, loading, speculation and, where a card is seen twice, the GPU backend. It shows
// ModelSettings and says when the user edits one; OffloadPanel plans with them.
class SettingsForm : public QWidget
{
    Q_OBJECT
public:
    explicit SettingsForm(QWidget *parent = nullptr);

    // The model the settings are for (null: none yet): the sliders' ranges (0..layers+1 GPU
    // layers, 0..layers expert layers, a context from 512 to the trained length in powers of
    // two), the experts row (MoE only), MTP speculation, and whether anything can be edited.
    void setModel(const shoehorn::ModelInfo *info);
    // `base` with what the widgets hold.
    ModelSettings settings(const ModelSettings &base) const;
    // Shows `s` without announcing an edit.
    void setSettings(const ModelSettings &s);
    // The GPU backend row, shown only where a card is seen twice.
    void setBackendChoices(const QString &chosen, const QList<BackendPicker::Choice> &choices);

signals:
    void edited();

private:
    void build();
    void addSliderRows(QGridLayout *grid, int &row);
    void addKvRows(QGridLayout *grid, int &row);
    void addOtherRows(QGridLayout *grid, int &row);
    void connectWidgets();
    void onEdited();
    void showValues();
    uint32_t contextAt(int position) const;
    int positionOfContext(uint32_t ctx) const;

    int m_layers = 0;
    bool m_moe = false;
    QList<uint32_t> m_contextStops;
    bool m_updating = false;

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
    QLabel *m_threadsWarning = nullptr;
    QComboBox *m_batch = nullptr;
    QComboBox *m_ubatch = nullptr;
    QComboBox *m_loadMode = nullptr;
    SpeculationPicker *m_speculation = nullptr;
    BackendPicker *m_backend = nullptr;
    QLabel *m_backendLabel = nullptr;
};
