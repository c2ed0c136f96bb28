#pragma once

#include "autofit.h"
#include "chattypes.h"
#include "hardware.h"
#include "modelinfo.h"
#include "modelsettings.h"

#include <QFutureWatcher>
#include <QObject>
#include <QTimer>

#include <memory>
#include <optional>

class ApiController;
class LoadedModel;
class HardwareMonitor;
class VisionController;
class ModelInspector;
class PlanTargets;

// What the offload panel shows, without widgets: the model it plans for (its GGUF read off the
// GUI thread), the settings being edited, the analytic plan for the machine PlanTargets says,
// llama.cpp's dry run (run by the inference worker a moment after the settings
// stop changing) and Auto-fit. Settings of the loaded model go to LoadedModel; those of
// another model are remembered for that file.
class OffloadController : public QObject
{
    Q_OBJECT
public:
    // The model's settings plus the local API's slots while it is on: what every plan uses.
    shoehorn::PlanSettings planSettings() const;
    // The projector the planned model reads images with (empty: none), its precision, and
    // the tokens a 1024x1024 picture takes of the context (llama.cpp's resizing rules).
    struct Images {
        QString projector;
        QString precision;
        bool onGpu = true;
        int tokens1024 = 0;
    };
    Images images() const;
    // For cards two backends see (an NVIDIA card through CUDA and Vulkan) on the machine planned
    // for: each backend the model can run them on, llama.cpp's default first, and the devices it
    // gets then ("Vulkan0 · NVIDIA GeForce RTX 3060"). Empty: no card is seen twice.
    struct BackendChoice {
        QString backend;
        QStringList devices;
    };
    QList<BackendChoice> backendChoices() const;
    // A KV cache type the model's heads cannot take: llama.cpp stores quantized types in blocks
    // of `block` values, which must divide the head size (the engine's rule, for the window's
    // words).
    struct KvHeadMismatch {
        QString type;
        int block = 0;
        uint32_t headSize = 0;
    };
    static std::optional<KvHeadMismatch> kvHeadMismatch(const shoehorn::ModelInfo &info,
                                                        const shoehorn::ContextSettings &context);
    // The loaded model (its settings), the machine (free memory), the local API (its
    // slots are in the plan) and the vision projectors (their memory), all the caller's.
    OffloadController(LoadedModel *model, HardwareMonitor *hardware, ApiController *api, VisionController *vision,
                      QObject *parent = nullptr);
    ~OffloadController() override;

    void setModelPath(const QString &path);
    QString modelPath() const { return m_path; }
    // Until the result is taken in (inspected()), not only while the thread runs: between the two
    // the future is finished and the model unknown.
    bool inspecting() const;
    const std::optional<shoehorn::ModelInfo> &info() const { return m_info; }
    // Why the file cannot be read (code None: it can, or it is being read).
    const shoehorn::Error &inspectError() const { return m_inspectError; }
    bool isLoadedModel() const; // the model planned for is the one loaded

    // RAM in its two parts: what only Shoehorn holds (anonymous) and model file pages kept by
    // mmap (reclaimable), planned, and, for the loaded model, what the process really grew by.
    struct RamParts {
        quint64 plannedAnonymous = 0;
        quint64 plannedFile = 0;
        bool loaded = false;
        quint64 actualAnonymous = 0;
        quint64 actualFile = 0;
    };
    RamParts ramParts() const;
    // The machine planned for (this computer or a profile): its own object, handed to the panel.
    PlanTargets *targets() const { return m_targets; }
    void setMarginMiB(int mib);

    ModelSettings settings() const { return m_settings; }
    void setSettings(const ModelSettings &settings); // the user edited them
    const shoehorn::MemoryPlan &plan() const { return m_plan; }
    // What llama.cpp allocated at the load, on this computer: none while planning a what-if machine.
    const shoehorn::MemoryPlan *measured() const;
    const std::optional<shoehorn::FitResult> &lastFit() const { return m_lastFit; }
    // Auto-fit runs on the work pool: a model that fits nowhere has every placement tried (about
    // 150 ms for a 48-layer MoE). fittingChanged() says when it starts and ends; its result is
    // dropped when the model, its settings, the margin or the machine planned for changed meanwhile.
    void autoFit();
    bool fitting() const { return m_fitRunning; }
    void loadOrReload();
    QString llamaServerCommand() const;

    bool exactCheckRunning() const { return m_exactRunning; }
    const std::optional<ExactCheck> &exactCheck() const { return m_exact; }

signals:
    void modelChanged();    // info() (or inspectError()) is new
    void settingsChanged(); // changed from here (first open, Auto-fit, a load), not by the user
    void planChanged();     // plan, measured, hardware or target
    void exactCheckChanged();
    void fittingChanged();

private:
    void inspected(const QString &path, const std::optional<shoehorn::ModelInfo> &info, const shoehorn::Error &error);
    void replan(bool checkAgain = true); // checkAgain: the dry run is out of date
    void onModelLoaded(const ModelSummary &summary);
    void onControllerSettings();
    void startExactCheck();
    void readDraftModel(); // the draft model's tensor table for the plan, off the GUI thread

    LoadedModel *m_model;
    ApiController *m_api;
    VisionController *m_vision;
    QString m_path;
    std::optional<shoehorn::ModelInfo> m_info;
    shoehorn::Error m_inspectError;
    ModelSettings m_settings;
    PlanTargets *m_targets;
    ModelInspector *m_inspector;
    ModelInspector *m_draftInspector;
    QString m_draftPath; // what m_draft was read from
    std::shared_ptr<const shoehorn::ModelInfo> m_draft;
    int m_marginMiB = 1024;
    shoehorn::MemoryPlan m_plan;
    std::optional<shoehorn::FitResult> m_lastFit;
    QFutureWatcher<shoehorn::FitResult> m_fitting;
    bool m_fitRunning = false; // until its result is taken in
    // What a fit reads changed (the model, its settings or locks, the margin, the machine): a
    // running fit's result is for m_fitFor, and dropped when that is no longer m_inputs.
    quint64 m_inputs = 0;
    quint64 m_fitFor = 0;
    void applyFit(const shoehorn::FitResult &f);
    QTimer m_exactDelay;
    bool m_exactRunning = false;
    std::optional<ExactCheck> m_exact;
    bool m_updating = false;
};
