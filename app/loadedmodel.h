#pragma once

#include "inferencesession.h"
#include "modelsettings.h"

#include <QObject>

#include <functional>
#include <optional>

// The model the app has loaded (or is loading): its state, its summary, the settings it runs
// with (remembered per model file), and opening, reloading and cancelling a load. GUI-thread
// object over the InferenceSession, which does the work on its thread. The widgets and
// controllers that are about the model are handed this; the open conversation is
// ChatController's. AppCore makes it.
class LoadedModel : public QObject
{
    Q_OBJECT
public:
    using State = InferenceSession::State;

    // The session runs the model; it belongs to the caller (AppCore).
    explicit LoadedModel(InferenceSession *session, QObject *parent = nullptr);

    State state() const { return m_session->state(); }
    const ModelSummary &model() const { return m_session->model(); }
    bool hasModel() const { return m_session->hasModel(); }
    // The file of the load in progress, or of the last one (whoever started it: the window, the
    // offload panel, a reload after tuning, a stored chat's model).
    QString loadingPath() const { return m_loadingPath; }

    // One part of the settings for the next load, neither stored nor announced (the CLI-like
    // setup of tests and tools); the window edits through setModelSettings.
    shoehorn::LoadSettings loadSettings() const { return m_settings.load; }
    void setLoadSettings(const shoehorn::LoadSettings &s) { m_settings.load = s; }
    shoehorn::ContextSettings contextSettings() const { return m_settings.context; }
    void setContextSettings(const shoehorn::ContextSettings &s) { m_settings.context = s; }
    shoehorn::GenerationOptions generationOptions() const { return m_settings.generation; }
    void setGenerationOptions(const shoehorn::GenerationOptions &o) { m_settings.generation = o; }
    // All per-model settings at once (what the offload panel edits); stored per model file, and
    // said by settingsEdited() (the open chat keeps its sampling part).
    ModelSettings modelSettings() const { return m_settings; }
    void setModelSettings(const ModelSettings &s);
    // The system prompt a new chat with the model file starts with (stored per file).
    QString defaultSystemPrompt(const QString &modelPath) const;
    void setDefaultSystemPrompt(const QString &modelPath, const QString &prompt);
    // The open chat's sampling settings: kept whichever model it runs on, and taken at once
    // (not stored for the model). nullopt: no chat is open; the loaded model's own come back.
    void setChatSampling(const std::optional<shoehorn::GenerationOptions> &sampling);

    // The speculation a model runs with `s`: its own choice, or for "Auto" what auto-tune chose
    // for that file on this machine (the resolver the composition root gives), else off.
    using SpeculationResolver = std::function<std::optional<shoehorn::SpeculationSettings>(const QString &path)>;
    void setAutoSpeculation(SpeculationResolver resolver) { m_autoSpeculation = std::move(resolver); }
    shoehorn::SpeculationSettings speculationFor(const QString &path, const ModelSettings &s) const;

    // llama.cpp's dry run of a plan on the inference thread; exactPlanFinished answers.
    void requestExactPlan(const QString &path, const shoehorn::PlanSettings &settings,
                          const shoehorn::PlanTarget &target);

public slots:
    // Opens a model with its remembered settings, if it has any.
    void openModel(const QString &path);
    // Loads the current model again with the current settings (after the user changed them).
    void reload();
    void cancelLoad();

signals:
    void stateChanged(InferenceSession::State state);
    // The settings changed: edited, or brought by another model or chat.
    void modelSettingsChanged();
    // The user (or a controller acting for them) changed the settings through setModelSettings.
    void settingsEdited();
    void loadProgress(double fraction);
    void loadRetrying(const shoehorn::OomRetry &retry);
    // After the settings have become what the load kept (out-of-memory retries change them).
    void modelLoaded(const ModelSummary &summary);
    // After the settings are the loaded model's again where one is still loaded (a file that
    // failed its check drops nothing).
    void loadFailed(const shoehorn::Error &error);
    void exactPlanFinished(const ExactCheck &check);

private:
    void applySettings(const ModelSettings &s);
    void onLoaded(const ModelSummary &summary);
    void onLoadFailed(const shoehorn::Error &error);

    InferenceSession *m_session;
    ModelSettings m_settings;
    std::optional<shoehorn::GenerationOptions> m_chatSampling;
    // The loaded model's own sampling (what is remembered for its file) while a chat's are used.
    shoehorn::GenerationOptions m_ownSampling;
    // What the loaded model ran with before an open asked for another's settings.
    ModelSettings m_settingsBefore;
    shoehorn::GenerationOptions m_ownSamplingBefore;
    QString m_loadingPath;
    SpeculationResolver m_autoSpeculation;
};
