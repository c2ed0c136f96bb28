#pragma once

#include "chattypes.h"
#include "tuningstore.h"

#include <QObject>
#include <QThread>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

class ApiHost;
class Worker;

// Owns the inference thread and its worker (the one owner of the loaded model), the load
// state machine, request ids and the cancel flags. GUI-thread object: callers ask, it queues
// the work to the worker and passes on only the results of the current request.
class InferenceSession : public QObject
{
    Q_OBJECT
public:
    enum class State { NoModel, Loading, Ready, Generating, Tuning };
    Q_ENUM(State)

    // Null: the real InferenceWorker. Tests pass a fake.
    explicit InferenceSession(std::unique_ptr<Worker> worker = {}, QObject *parent = nullptr);
    // Cancels what runs (flags polled per token and per load step), then joins the thread within
    // kStopMs; a worker stuck past that ends the process (never a window that cannot close).
    ~InferenceSession() override;
    static constexpr int kStopMs = 10000;
    // The same with a deadline, for quitting: false when the worker did not stop in time (stuck
    // inside llama.cpp, where no flag is read); the caller then ends the process without it.
    bool shutdown(int milliseconds);

    State state() const { return m_state; }
    const ModelSummary &model() const { return m_model; }
    // The loaded model's vision projector (path empty: none).
    const VisionSummary &vision() const { return m_vision; }
    // Loads (or, with an empty path, drops) the projector for the loaded model; visionChanged answers.
    void loadProjector(const QString &path, bool offload);
    // Queued on the inference thread before any load (Worker::attachRemotes); answers with
    // remotesAttached.
    void attachRemotes(const QStringList &endpoints, const QString &helper);
    bool hasModel() const { return !m_model.path.isEmpty(); }
    Worker *worker() const { return m_worker; } // for test seams only
    // The local API on the worker's model (ApiController drives it).
    std::shared_ptr<ApiHost> apiHost() const { return m_api; }

    // Loads (after stopping an answer or a load that runs: the latest request wins).
    void load(const QString &path, const shoehorn::LoadSettings &load, const shoehorn::ContextSettings &context);
    void cancelLoad();
    // Returns the request id, or 0 when no model is ready.
    // The history goes to the worker as it is (its pictures' bytes shared, megabytes each), and is
    // made the engine's there.
    quint64 generate(ChatHistory history, const shoehorn::GenerationOptions &options);
    void stop();
    // NoModel, or Busy while a load, an answer or another tuning runs.
    shoehorn::Error startTuning(const shoehorn::TuneRequest &request);
    void cancelTuning();
    // The dry run waits for what the worker does now; the newest request's result is delivered.
    quint64 requestExactPlan(const QString &path, const shoehorn::PlanSettings &settings,
                             const shoehorn::PlanTarget &target);

signals:
    void remotesAttached(const shoehorn::AttachedRemotes &result);
    void stateChanged(InferenceSession::State state);
    void loadProgress(double fraction);
    void loadRetrying(const shoehorn::OomRetry &retry);
    void modelLoaded(const ModelSummary &summary);
    void loadFailed(const shoehorn::Error &error);
    void delta(const QString &content, const QString &reasoning);
    void prefillProgress(int done, int total);
    void imageProgress(int number, int count);
    void generationProgress(double tokensPerSecond, int contextUsed, int contextSize);
    void generationFinished(const shoehorn::GenerationStats &stats);
    void generationFailed(const shoehorn::Error &error);
    void tuningProgress(int done, int total, const QString &configuration);
    void tuningFinished(const TuneReport &report);
    void exactPlanFinished(const ExactCheck &check);
    void visionChanged(const VisionSummary &vision);

private:
    void setState(State s);
    void startLoad();
    void onLoaded(const ModelSummary &summary);
    void onLoadFailed(const shoehorn::Error &error);
    void onLoadRefused(const shoehorn::Error &error);
    void connectWorker();

    QThread m_thread;
    std::shared_ptr<ApiHost> m_api; // before m_worker, which holds it
    Worker *m_worker = nullptr;
    VisionSummary m_vision;
    std::atomic<bool> m_cancelLoad{false};
    std::atomic<bool> m_cancelGeneration{false};
    std::atomic<bool> m_noResume{false};
    std::atomic<bool> m_quitting{false};
    State m_state = State::NoModel;
    ModelSummary m_model;
    struct PendingLoad {
        QString path;
        shoehorn::LoadSettings load;
        shoehorn::ContextSettings context;
    };
    std::optional<PendingLoad> m_pending; // asked for while another load was running
    PendingLoad m_loading;
    quint64 m_requestId = 0;
    std::atomic<quint64> m_exactId{0}; // read by the worker to skip superseded dry runs
};
