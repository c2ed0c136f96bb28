#include "inferenceworker.h"

#include "deltabatcher.h"
#include "model.h"

#include <QElapsedTimer>

using namespace shoehorn;

InferenceWorker::InferenceWorker(const std::atomic<bool> *cancelLoad, const std::atomic<bool> *cancelGeneration,
                                 QObject *parent)
    : QObject(parent), m_cancelLoad(cancelLoad), m_cancelGeneration(cancelGeneration)
{
}

InferenceWorker::~InferenceWorker() = default;

void InferenceWorker::loadModel(const QString &path, const LoadSettings &load, const ContextSettings &context)
{
    // Free the old model first: two large models rarely fit at once.
    m_session.reset();
    m_model.reset();

    QElapsedTimer sinceEmit;
    sinceEmit.start();
    auto model = Model::load(
        path.toStdString(), load,
        [&](float p) {
            if (sinceEmit.elapsed() >= 33 || p >= 1.0f) { // the GUI needs no more than ~30 updates/s
                emit loadProgress(double(p));
                sinceEmit.restart();
            }
        },
        m_cancelLoad);
    if (!model) {
        emit loadFailed(int(model.error().code), QString::fromStdString(model.error().detail));
        return;
    }
    auto session = ChatSession::create(*model, context);
    if (!session) {
        emit loadFailed(int(session.error().code), QString::fromStdString(session.error().detail));
        return;
    }
    m_model = *model;
    m_session = std::move(*session);

    const ModelInfo &info = m_model->info();
    ModelSummary s;
    s.path = path;
    s.name = QString::fromStdString(info.name.empty() ? m_model->description() : info.name);
    s.architecture = QString::fromStdString(info.architecture);
    s.quantization = QString::fromStdString(info.fileTypeName);
    s.fileSize = info.fileSize;
    s.parameterCount = info.parameterCount;
    s.layerCount = int(info.layerCount);
    s.expertCount = int(info.expertCount);
    s.expertUsedCount = int(info.expertUsedCount);
    s.contextSize = int(m_session->contextSize());
    s.trainedContext = int(info.contextLength);
    s.supportsThinking = m_session->templateSupportsThinking();
    emit modelLoaded(s);
}

void InferenceWorker::unloadModel()
{
    m_session.reset();
    m_model.reset();
    emit modelUnloaded();
}

void InferenceWorker::generate(quint64 requestId, const std::vector<ChatMessage> &history,
                               const GenerationOptions &options)
{
    if (!m_session) {
        emit generationFailed(requestId, int(ErrorCode::NoModel), QString());
        return;
    }
    DeltaBatcher batcher;
    QString content, reasoning;
    StreamCallbacks cb;
    cb.onDelta = [&](std::string_view c, std::string_view r) {
        batcher.add(c.data(), c.size(), r.data(), r.size());
        if (batcher.due()) {
            batcher.take(content, reasoning);
            emit delta(requestId, content, reasoning);
        }
    };
    QElapsedTimer sincePrefill;
    sincePrefill.start();
    cb.onPrefill = [&](int done, int total) {
        if (sincePrefill.elapsed() >= 100 || done == total) {
            emit prefillProgress(requestId, done, total);
            sincePrefill.restart();
        }
    };
    auto result = m_session->generate(history, options, cb, m_cancelGeneration);
    if (!batcher.isEmpty()) {
        batcher.take(content, reasoning);
        emit delta(requestId, content, reasoning);
    }
    if (!result) {
        emit generationFailed(requestId, int(result.error().code), QString::fromStdString(result.error().detail));
        return;
    }
    emit generationFinished(requestId, result->stats);
}
