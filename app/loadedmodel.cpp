#include "loadedmodel.h"

#include "appsettings.h"

#include <QTimer>

LoadedModel::LoadedModel(InferenceSession *session, QObject *parent)
    : QObject(parent), m_session(session), m_settings(AppSettings::defaults())
{
    connect(m_session, &InferenceSession::stateChanged, this, &LoadedModel::stateChanged);
    connect(m_session, &InferenceSession::loadProgress, this, &LoadedModel::loadProgress);
    connect(m_session, &InferenceSession::loadRetrying, this, &LoadedModel::loadRetrying);
    connect(m_session, &InferenceSession::modelLoaded, this, &LoadedModel::onLoaded);
    connect(m_session, &InferenceSession::loadFailed, this, &LoadedModel::onLoadFailed);
    connect(m_session, &InferenceSession::exactPlanFinished, this, &LoadedModel::exactPlanFinished);
}

void LoadedModel::applySettings(const ModelSettings &s)
{
    if (s == m_settings)
        return;
    m_settings = s;
    emit modelSettingsChanged();
}

void LoadedModel::setModelSettings(const ModelSettings &s)
{
    m_settings = s;
    m_ownSampling = s.generation; // an edit is the model's too
    if (m_chatSampling)
        m_chatSampling = s.generation;
    if (hasModel())
        ModelSettingsStore::save(model().path, s);
    emit settingsEdited();
    emit modelSettingsChanged();
}

void LoadedModel::setChatSampling(const std::optional<shoehorn::GenerationOptions> &sampling)
{
    const bool hadChat = m_chatSampling.has_value();
    m_chatSampling = sampling;
    ModelSettings s = m_settings;
    if (sampling)
        s.generation = *sampling;
    else if (hadChat && hasModel())
        s.generation = m_ownSampling; // a new chat starts with the model's own
    else
        return;
    applySettings(s);
}

void LoadedModel::reload()
{
    if (hasModel() && state() != State::Loading)
        openModel(model().path);
}

void LoadedModel::openModel(const QString &path)
{
    if (state() != State::Loading) { // an open during a load keeps what the model before it had
        m_settingsBefore = m_settings;
        m_ownSamplingBefore = m_ownSampling;
    }
    // The worker caps the context at the trained length, so the first-open rule needs no GGUF here.
    ModelSettings s = AppSettings::forModel(path, m_settings, model().path);
    m_ownSampling = s.generation;
    if (m_chatSampling)
        s.generation = *m_chatSampling;
    applySettings(s);
    m_loadingPath = path;
    shoehorn::LoadSettings load = m_settings.load;
    shoehorn::ContextSettings context = m_settings.context;
    context.speculation = speculationFor(path, m_settings);
    load.mtpLayers = context.speculation.mtp();
    m_session->load(path, load, context);
}

shoehorn::SpeculationSettings LoadedModel::speculationFor(const QString &path, const ModelSettings &s) const
{
    if (!s.speculationAuto)
        return s.context.speculation;
    if (m_autoSpeculation)
        if (auto tuned = m_autoSpeculation(path))
            return *tuned;
    return {};
}

void LoadedModel::cancelLoad()
{
    m_session->cancelLoad();
}

void LoadedModel::requestExactPlan(const QString &path, const shoehorn::PlanSettings &settings,
                                   const shoehorn::PlanTarget &target)
{
    m_session->requestExactPlan(path, settings, target);
}

void LoadedModel::onLoadFailed(const shoehorn::Error &error)
{
    if (hasModel()) { // refused before anything was dropped: the loaded model's settings again
        m_ownSampling = m_ownSamplingBefore;
        applySettings(m_settingsBefore);
    }
    emit loadFailed(error);
}

void LoadedModel::onLoaded(const ModelSummary &summary)
{
    // Keep what worked: after out-of-memory retries these are the safer settings.
    m_settings.load = summary.load;
    m_settings.context.contextSize = summary.context.contextSize;
    m_settings.context.typeK = summary.context.typeK;
    m_settings.context.typeV = summary.context.typeV;
    // Written a moment later, after the window has shown the model (AppSettings::kWriteAfterLoadMs);
    // with the model's own sampling, not the open chat's.
    ModelSettings remembered = m_settings;
    remembered.generation = m_ownSampling;
    QTimer::singleShot(AppSettings::kWriteAfterLoadMs, this,
                       [path = summary.path, remembered] { ModelSettingsStore::save(path, remembered); });
    emit modelLoaded(summary);
}

QString LoadedModel::defaultSystemPrompt(const QString &modelPath) const
{
    return AppSettings::systemPrompt(modelPath);
}

void LoadedModel::setDefaultSystemPrompt(const QString &modelPath, const QString &prompt)
{
    AppSettings::setSystemPrompt(modelPath, prompt);
}
