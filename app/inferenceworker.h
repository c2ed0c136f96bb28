#pragma once

#include "worker.h"

#include <functional>
#include <memory>
#include <optional>

namespace shoehorn {
class Model;
class ChatSession;
class Projector;
} // namespace shoehorn

// Runs llama.cpp on the session's QThread: the one owner of the loaded model and its context.
// Every function is invoked queued from the GUI thread; results go back as signals.
class InferenceWorker : public Worker
{
    Q_OBJECT
public:
    explicit InferenceWorker(QObject *parent = nullptr);
    ~InferenceWorker() override;

    // Test seam: called before each load stage (0: weights, 1: context) with the settings about
    // to be tried; returning an Error makes that stage fail as if llama.cpp had.
    using FailureInjector = std::function<std::optional<shoehorn::Error>(int stage, const shoehorn::PlanSettings &)>;
    void setFailureInjector(FailureInjector injector) { m_inject = std::move(injector); }

    void loadModel(const QString &path, const shoehorn::LoadSettings &load,
                   const shoehorn::ContextSettings &context) override;
    void generate(quint64 requestId, const std::vector<shoehorn::ChatMessage> &history,
                  const shoehorn::GenerationOptions &options) override;
    // Measures configurations of the loaded model, then the tuning story, as a mode of the one
    // engine: the session (its loop, context, projector) goes first and the local API answers
    // 503 meanwhile; the trials reuse the weights while the placement stays; then the model
    // runs again as before. Cancelled by the generation cancel flag.
    void autoTune(const shoehorn::TuneRequest &request) override;
    void exactPlan(quint64 requestId, const QString &path, const shoehorn::PlanSettings &settings,
                   const shoehorn::PlanTarget &target) override;
    void loadProjector(const QString &path, bool offload) override;

private:
    shoehorn::Result<bool> tryLoad(const QString &path, const shoehorn::PlanSettings &settings);
    // The session on loaded weights (context capped at the trained length, the API's slots, the
    // template helper); m_session on success.
    shoehorn::Error startSession(std::shared_ptr<shoehorn::Model> model, const shoehorn::ContextSettings &settings);
    // After a tune: the model as it was loaded (these weights when their placement is that one),
    // its projector and the API again.
    shoehorn::Error resumeAfterTuning(std::shared_ptr<shoehorn::Model> model, const shoehorn::LoadSettings &load,
                                      const shoehorn::ContextSettings &context, const QString &projector,
                                      bool projectorOffload);
    ModelSummary summary(const QString &path, const shoehorn::PlanSettings &used,
                         const shoehorn::HardwareInfo &hw) const;

    FailureInjector m_inject;
    QString m_path;
    // The loaded model's one owner: its server loop, projector and weights, freed here.
    std::unique_ptr<shoehorn::ChatSession> m_session;
    shoehorn::HeldMemory m_held; // what the loaded model took from the machine
    // Why the loaded model runs without its draft model: the draft failed the file check.
    std::optional<shoehorn::SpeculationOff> m_draftRefused;
};
