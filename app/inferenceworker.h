#pragma once

#include "chattypes.h"
#include "oomladder.h"
#include "tuningstore.h"

#include <functional>
#include <optional>

#include <QObject>

#include <atomic>
#include <memory>

namespace shoehorn {
class Model;
class ChatSession;
} // namespace shoehorn

// Runs llama.cpp on the controller's QThread. Every slot is invoked queued from the GUI
// thread; results go back as signals. Cancel flags belong to the controller and are only read here.
class InferenceWorker : public QObject
{
    Q_OBJECT
public:
    InferenceWorker(const std::atomic<bool> *cancelLoad, const std::atomic<bool> *cancelGeneration,
                    QObject *parent = nullptr);
    ~InferenceWorker() override;

    // Test seam: called before each load stage (0: weights, 1: context) with the settings about
    // to be tried; returning an Error makes that stage fail as if llama.cpp had.
    using FailureInjector = std::function<std::optional<shoehorn::Error>(int stage, const shoehorn::PlanSettings &)>;
    void setFailureInjector(FailureInjector injector) { m_inject = std::move(injector); }

public slots:
    void loadModel(const QString &path, const shoehorn::LoadSettings &load, const shoehorn::ContextSettings &context);
    void generate(quint64 requestId, const std::vector<shoehorn::ChatMessage> &history,
                  const shoehorn::GenerationOptions &options);
    // Measures configurations of the loaded model (reusing its weights while the placement
    // stays), then the tuning story. Cancelled by the generation cancel flag.
    void autoTune(const shoehorn::TuneRequest &request);

signals:
    void loadProgress(double fraction);
    // Loading ran out of memory; it is being retried with safer settings.
    void loadRetrying(const shoehorn::OomRetry &retry);
    void modelLoaded(const ModelSummary &summary);
    void loadFailed(int errorCode, const QString &detail);
    void prefillProgress(quint64 requestId, int done, int total);
    void delta(quint64 requestId, const QString &content, const QString &reasoning);
    // With each batch of text: live speed and how full the context is.
    void generationProgress(quint64 requestId, double tokensPerSecond, int contextUsed, int contextSize);
    void generationFinished(quint64 requestId, const shoehorn::GenerationStats &stats);
    void generationFailed(quint64 requestId, int errorCode, const QString &detail);
    void tuneProgress(int done, int total, const QString &configuration);
    void tuneFinished(const TuneReport &report);

private:
    shoehorn::Result<bool> tryLoad(const QString &path, const shoehorn::PlanSettings &settings);

    const std::atomic<bool> *m_cancelLoad;
    FailureInjector m_inject;
    const std::atomic<bool> *m_cancelGeneration;
    std::shared_ptr<shoehorn::Model> m_model;
    QString m_path;
    std::unique_ptr<shoehorn::ChatSession> m_session;
};
