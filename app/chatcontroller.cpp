#include "chatcontroller.h"

#include "chatmodel.h"
#include "hardware.h"
#include "inferenceworker.h"

namespace {
constexpr uint32_t kDefaultContext = 8192;
}

ChatController::ChatController(QObject *parent) : QObject(parent), m_chat(new ChatModel(this))
{
    registerShoehornMetaTypes();
    m_load.gpuLayers = -1;
    m_context.contextSize = kDefaultContext;
    m_options.sampling.temperature = 0.7f;
    m_options.sampling.topK = 20;
    m_options.sampling.topP = 0.8f;
    m_options.sampling.minP = 0.0f;

    m_worker = new InferenceWorker(&m_cancelLoad, &m_cancelGeneration);
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &InferenceWorker::loadProgress, this, &ChatController::loadProgress);
    connect(m_worker, &InferenceWorker::modelLoaded, this, &ChatController::onLoaded);
    connect(m_worker, &InferenceWorker::loadRetrying, this, &ChatController::loadRetrying);
    connect(m_worker, &InferenceWorker::tuneProgress, this, &ChatController::tuningProgress);
    connect(m_worker, &InferenceWorker::tuneFinished, this, [this](const TuneReport &report) {
        if (m_state == State::Tuning)
            setState(hasModel() ? State::Ready : State::NoModel);
        if (!report.empty())
            TuningStore::save(m_model.path, TuningStore::machineId(shoehorn::probeHardware()), report);
        emit tuningFinished(report);
    });
    connect(m_worker, &InferenceWorker::loadFailed, this, &ChatController::onLoadFailed);
    connect(m_worker, &InferenceWorker::delta, this, &ChatController::onDelta);
    connect(m_worker, &InferenceWorker::generationFinished, this, &ChatController::onFinished);
    connect(m_worker, &InferenceWorker::generationFailed, this, &ChatController::onFailed);
    connect(m_worker, &InferenceWorker::generationProgress, this,
            [this](quint64 id, double tps, int used, int size) {
                if (id == m_requestId)
                    emit generationProgress(tps, used, size);
            });
    connect(m_worker, &InferenceWorker::prefillProgress, this,
            [this](quint64 id, int done, int total) {
                if (id == m_requestId)
                    emit prefillProgress(done, total);
            });
    m_thread.setObjectName(QStringLiteral("inference"));
    m_thread.start();
    m_storeOpen = m_store.open(ChatStore::defaultPath());
    if (!m_storeOpen)
        qWarning("chat history not available: %s", qPrintable(m_store.lastError()));
}

ChatController::~ChatController()
{
    // Stop whatever runs (both flags are polled per token and per load step), then join.
    m_cancelLoad = true;
    m_cancelGeneration = true;
    m_thread.quit();
    m_thread.wait();
}

void ChatController::setState(State s)
{
    if (m_state == s)
        return;
    m_state = s;
    emit stateChanged(s);
}

ModelSettings ChatController::modelSettings() const
{
    return ModelSettings{m_load, m_context, m_options, m_locks};
}

void ChatController::setModelSettings(const ModelSettings &s)
{
    m_load = s.load;
    m_context = s.context;
    m_options = s.generation;
    m_locks = s.locks;
    if (hasModel())
        ModelSettingsStore::save(m_model.path, s);
    emit modelSettingsChanged();
}

void ChatController::reload()
{
    if (hasModel() && m_state != State::Loading)
        openModel(m_model.path);
}

void ChatController::openModel(const QString &path)
{
    ModelSettings stored = modelSettings();
    if (!ModelSettingsStore::load(path, stored) && hasModel() && m_model.path != path) {
        // A model opened for the first time after another: that one's placement and context
        // do not carry over (the worker caps the context at the trained length).
        stored.context.contextSize = kDefaultContext;
        stored.load.cpuMoeLayers = 0;
    }
    if (!(stored == modelSettings())) {
        m_load = stored.load;
        m_context = stored.context;
        m_options = stored.generation;
        m_locks = stored.locks;
        emit modelSettingsChanged();
    }
    if (m_state == State::Loading) {
        // The running load must end first; it sees the flag at its next progress step.
        m_pendingPath = path;
        m_cancelLoad = true;
        return;
    }
    if (m_state == State::Generating)
        m_cancelGeneration = true; // the queued load runs once the answer stops
    startLoad(path);
}

void ChatController::startLoad(QString path)
{
    m_pendingPath.clear();
    m_cancelLoad = false;
    setState(State::Loading);
    const auto load = m_load;
    const auto context = m_context;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, path, load, context] { w->loadModel(path, load, context); },
                              Qt::QueuedConnection);
}

void ChatController::cancelLoad()
{
    if (m_state == State::Loading) {
        m_pendingPath.clear();
        m_cancelLoad = true;
    }
}

void ChatController::onLoaded(const ModelSummary &summary)
{
    if (!m_pendingPath.isEmpty()) {
        startLoad(m_pendingPath);
        return;
    }
    m_model = summary;
    // Keep what worked: after out-of-memory retries these are the safer settings.
    m_load = summary.load;
    m_context.contextSize = summary.context.contextSize;
    m_context.typeK = summary.context.typeK;
    m_context.typeV = summary.context.typeV;
    ModelSettingsStore::save(summary.path, modelSettings());
    setState(State::Ready);
    emit modelLoaded(summary);
}

void ChatController::onLoadFailed(int code, const QString &detail)
{
    if (!m_pendingPath.isEmpty()) {
        startLoad(m_pendingPath);
        return;
    }
    // The worker dropped the previous model before loading.
    m_model = ModelSummary{};
    setState(State::NoModel);
    emit loadFailed(code, detail);
}

bool ChatController::send(const QString &text)
{
    const QString trimmed = text.trimmed();
    if (m_state != State::Ready || trimmed.isEmpty())
        return false;
    ChatModel::Message user;
    user.role = QStringLiteral("user");
    user.content = trimmed;
    m_chat->appendMessage(user);
    if (m_storeOpen) {
        // The question is committed at once; the answer is checkpointed while it streams.
        if (m_conversation == 0) {
            m_conversation = m_store.createConversation(trimmed.left(60).simplified(), m_model.path, m_systemPrompt);
            emit conversationsChanged();
        }
        m_store.appendMessage(m_conversation, {0, m_conversation, user.role, trimmed, {}, QStringLiteral("done")});
        m_answerMessage = m_store.appendMessage(
            m_conversation, {0, m_conversation, QStringLiteral("assistant"), {}, {}, QStringLiteral("streaming")});
        m_sinceCheckpoint.start();
    }
    const auto history = m_chat->history(m_systemPrompt);

    ChatModel::Message answer;
    answer.role = QStringLiteral("assistant");
    answer.state = ChatModel::State::Streaming;
    m_answerRow = m_chat->appendMessage(answer);

    m_cancelGeneration = false;
    const quint64 id = ++m_requestId;
    const auto options = m_options;
    setState(State::Generating);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, id, history, options] { w->generate(id, history, options); },
                              Qt::QueuedConnection);
    return true;
}

void ChatController::stop()
{
    if (m_state == State::Generating)
        m_cancelGeneration = true;
}

void ChatController::newChat()
{
    stop();
    m_chat->clear();
    m_answerRow = -1;
    m_conversation = 0;
    m_answerMessage = 0;
}

bool ChatController::openConversation(qint64 id)
{
    if (!m_storeOpen || m_state == State::Generating || m_state == State::Tuning)
        return false;
    const auto stored = m_store.messages(id);
    m_chat->clear();
    for (const auto &m : stored) {
        ChatModel::Message msg;
        msg.role = m.role;
        msg.content = m.content;
        msg.reasoning = m.reasoning;
        // An answer that was streaming when Shoehorn stopped is kept as stopped.
        msg.state = m.state == QLatin1String("failed")  ? ChatModel::State::Failed
                    : m.state == QLatin1String("done") ? ChatModel::State::Done
                                                        : ChatModel::State::Stopped;
        m_chat->appendMessage(msg);
    }
    m_conversation = id;
    m_answerRow = -1;
    return true;
}

bool ChatController::renameConversation(qint64 id, const QString &title)
{
    const bool ok = m_storeOpen && m_store.renameConversation(id, title);
    if (ok)
        emit conversationsChanged();
    return ok;
}

bool ChatController::deleteConversation(qint64 id)
{
    const bool ok = m_storeOpen && m_store.deleteConversation(id);
    if (ok) {
        if (id == m_conversation)
            newChat();
        emit conversationsChanged();
    }
    return ok;
}

bool ChatController::startTuning(const shoehorn::TuneRequest &request)
{
    if (m_state != State::Ready)
        return false;
    m_cancelGeneration = false;
    setState(State::Tuning);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, request] { w->autoTune(request); }, Qt::QueuedConnection);
    return true;
}

void ChatController::cancelTuning()
{
    if (m_state == State::Tuning)
        m_cancelGeneration = true;
}

void ChatController::onDelta(quint64 id, const QString &content, const QString &reasoning)
{
    if (id != m_requestId || m_answerRow < 0)
        return;
    m_chat->appendText(m_answerRow, content, reasoning);
    // Checkpoint the growing answer about once a second: a crash loses at most that much.
    if (m_answerMessage && m_sinceCheckpoint.elapsed() >= 1000) {
        const auto &m = m_chat->message(m_answerRow);
        m_store.updateMessage(m_answerMessage, m.content, m.reasoning, QStringLiteral("streaming"));
        m_sinceCheckpoint.restart();
    }
}

void ChatController::onFinished(quint64 id, const shoehorn::GenerationStats &stats)
{
    if (id != m_requestId)
        return;
    const bool stopped = stats.stopReason == shoehorn::StopReason::Cancelled;
    m_chat->finish(m_answerRow, stopped ? ChatModel::State::Stopped : ChatModel::State::Done, &stats);
    if (m_answerMessage && m_answerRow >= 0) {
        const auto &m = m_chat->message(m_answerRow);
        m_store.updateMessage(m_answerMessage, m.content, m.reasoning,
                              stopped ? QStringLiteral("stopped") : QStringLiteral("done"));
        m_answerMessage = 0;
        emit conversationsChanged();
    }
    m_answerRow = -1;
    if (m_state == State::Generating)
        setState(State::Ready);
    emit answerFinished(stats);
}

void ChatController::onFailed(quint64 id, int code, const QString &detail)
{
    if (id != m_requestId)
        return;
    m_chat->finish(m_answerRow, ChatModel::State::Failed, nullptr);
    if (m_answerMessage) {
        m_store.updateMessage(m_answerMessage, {}, {}, QStringLiteral("failed"));
        m_answerMessage = 0;
    }
    m_answerRow = -1;
    if (m_state == State::Generating)
        setState(hasModel() ? State::Ready : State::NoModel);
    emit generationFailed(code, detail);
}
