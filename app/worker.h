#pragma once

#include "chattypes.h"
#include "remote.h"
#include "tuningstore.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <vector>

class ApiHost;

// What the inference thread does, as an interface. InferenceWorker runs llama.cpp; controller
// tests give InferenceSession a fake. InferenceSession moves the worker to its thread and calls
// these functions there, queued, one at a time: the worker is the only caller of llama.cpp that
// holds a model (see docs/architecture.md). The cancel flags belong to the session.
class Worker : public QObject
{
    Q_OBJECT
public:
    struct CancelFlags {
        const std::atomic<bool> *load = nullptr;
        const std::atomic<bool> *generation = nullptr; // also stops auto-tune
        // The tuned model is not wanted back after auto-tune: the app quits, or another model
        // was asked for meanwhile (its load is queued behind the tune).
        const std::atomic<bool> *noResume = nullptr;
        // The app is quitting (InferenceSession::shutdown): a remote machine's probe ends.
        const std::atomic<bool> *quitting = nullptr;
    };
    using QObject::QObject;
    void setCancelFlags(CancelFlags flags) { m_cancel = flags; }
    // Where the worker publishes the model it loaded for the local API (see ApiHost).
    void setApiHost(std::shared_ptr<ApiHost> host) { m_api = std::move(host); }

    virtual void loadModel(const QString &path, const shoehorn::LoadSettings &load,
                           const shoehorn::ContextSettings &context) = 0;
    virtual void generate(quint64 requestId, const std::vector<shoehorn::ChatMessage> &history,
                          const shoehorn::GenerationOptions &options) = 0;
    virtual void autoTune(const shoehorn::TuneRequest &request) = 0;
    // llama.cpp's no_alloc dry run of a model file (loaded or not) on this machine's devices.
    virtual void exactPlan(quint64 requestId, const QString &path, const shoehorn::PlanSettings &settings,
                           const shoehorn::PlanTarget &target) = 0;
    // Loads the vision projector (mmproj) for the loaded model, replacing any; an empty path
    // drops it. Answers with visionChanged. A new model drops the projector of the old one.
    // The default (fakes) reports that images are not available.
    virtual void loadProjector(const QString &path, bool offload)
    {
        VisionSummary v;
        v.path = path;
        v.offload = offload;
        if (!path.isEmpty())
            v.error = shoehorn::Error{shoehorn::ErrorCode::ProjectorFailed, "this worker reads no images"};
        emit visionChanged(v);
    }

    // Adds the devices of the remote machines (RPC workers) that answer to ggml's: on this thread,
    // so that no load or dry run enumerates the devices meanwhile. Asking each worker waits on a
    // helper process (up to 5 s for a silent one), never on the GUI thread.
    void attachRemotes(const QStringList &endpoints, const QString &helper)
    {
        std::vector<std::string> list;
        for (const QString &e : endpoints)
            list.push_back(e.toStdString());
        emit remotesAttached(list.empty() || helper.isEmpty()
                                 ? shoehorn::AttachedRemotes{}
                                 : shoehorn::attachRemotes(list, helper.toStdString(), m_cancel.quitting));
    }

signals:
    void remotesAttached(const shoehorn::AttachedRemotes &result);
    void loadProgress(double fraction);
    void loadRetrying(const shoehorn::OomRetry &retry);
    void modelLoaded(const ModelSummary &summary);
    void loadFailed(const shoehorn::Error &error);
    // The file failed its check (or the check was cancelled) before anything was dropped: the
    // model loaded before, if any, is still loaded and serving.
    void loadRefused(const shoehorn::Error &error);
    void prefillProgress(quint64 requestId, int done, int total);
    // Before an image of the prompt is encoded: its number (1-based) of `count`.
    void imageProgress(quint64 requestId, int number, int count);
    void delta(quint64 requestId, const QString &content, const QString &reasoning);
    void generationProgress(quint64 requestId, double tokensPerSecond, int contextUsed, int contextSize);
    void generationFinished(quint64 requestId, const shoehorn::GenerationStats &stats);
    void generationFailed(quint64 requestId, const shoehorn::Error &error);
    void tuneProgress(int done, int total, const QString &configuration);
    void tuneFinished(const TuneReport &report);
    void exactPlanFinished(const ExactCheck &check);
    void visionChanged(const VisionSummary &vision);

protected:
    bool loadCancelled() const { return m_cancel.load && m_cancel.load->load(); }
    bool generationCancelled() const { return m_cancel.generation && m_cancel.generation->load(); }
    bool resumeCancelled() const { return m_cancel.noResume && m_cancel.noResume->load(); }
    CancelFlags m_cancel;
    std::shared_ptr<ApiHost> m_api;
};
