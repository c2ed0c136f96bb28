#include "chatcontroller.h"

#include "chatjson.h"
#include "chatmodel.h"
#include "hardware.h"
#include "inferenceworker.h"

#include <QCryptographicHash>
#include <QSettings>

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
    storeChatSettings();
    emit modelSettingsChanged();
}

void ChatController::setSystemPrompt(const QString &s)
{
    m_systemPrompt = s;
    storeChatSettings();
}

void ChatController::storeChatSettings()
{
    if (m_storeOpen && m_conversation)
        m_store.setConversationSettings(m_conversation, m_systemPrompt, ChatJson::optionsToJson(m_options));
}

namespace {
QString promptKey(const QString &modelPath)
{
    const QByteArray h = QCryptographicHash::hash(modelPath.toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    return QStringLiteral("systemPrompts/") + QString::fromLatin1(h);
}
} // namespace

QString ChatController::defaultSystemPrompt(const QString &modelPath)
{
    return QSettings().value(promptKey(modelPath)).toString();
}

void ChatController::setDefaultSystemPrompt(const QString &modelPath, const QString &prompt)
{
    if (prompt.isEmpty())
        QSettings().remove(promptKey(modelPath));
    else
        QSettings().setValue(promptKey(modelPath), prompt);
}

QString ChatController::conversationTitle() const
{
    return m_storeOpen && m_conversation ? m_store.conversation(m_conversation).title : QString();
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
    // An open chat keeps its own sampling settings whichever model it runs on.
    if (m_storeOpen && m_conversation)
        ChatJson::optionsFromJson(m_store.conversation(m_conversation).settings, stored.generation);
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
    // A new chat starts with the model's own system prompt.
    if (m_chat->rowCount() == 0 && m_conversation == 0)
        m_systemPrompt = defaultSystemPrompt(summary.path);
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
    ensureConversation(trimmed);
    const int row = m_chat->appendMessage(ChatModel::make(QStringLiteral("user"), trimmed));
    if (m_storeOpen && m_conversation) // the question is committed at once
        m_chat->setStoreId(row, m_store.appendMessage(
                                   m_conversation, ChatStore::message(m_conversation, QStringLiteral("user"), trimmed, QStringLiteral("done"))));
    const auto history = m_chat->history(m_systemPrompt);
    startAnswer(appendAnswerRow(), history);
    return true;
}

int ChatController::appendAnswerRow()
{
    const int row = m_chat->appendMessage(ChatModel::make(QStringLiteral("assistant"), {}, ChatModel::State::Streaming));
    m_answerMessage = 0;
    m_answerVersion = 0;
    if (m_storeOpen && m_conversation) {
        m_answerMessage = m_store.appendMessage(
            m_conversation, ChatStore::message(m_conversation, QStringLiteral("assistant"), {}, QStringLiteral("streaming")));
        m_chat->setStoreId(row, m_answerMessage);
    }
    return row;
}

void ChatController::ensureConversation(const QString &firstText)
{
    if (!m_storeOpen || m_conversation != 0)
        return;
    m_conversation = m_store.createConversation(firstText.left(60).simplified(), m_model.path, m_systemPrompt);
    storeChatSettings();
    emit conversationsChanged();
}

void ChatController::startAnswer(int row, const std::vector<shoehorn::ChatMessage> &history)
{
    m_answerRow = row;
    m_sinceCheckpoint.start();
    m_cancelGeneration = false;
    const quint64 id = ++m_requestId;
    const auto options = m_options;
    setState(State::Generating);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, id, history, options] { w->generate(id, history, options); },
                              Qt::QueuedConnection);
}

bool ChatController::regenerate(int row)
{
    if (m_state != State::Ready || row != m_chat->rowCount() - 1)
        return false;
    if (m_chat->message(row).role == QLatin1String("user")) {
        // The answer was deleted (or never came): answer the last question.
        const auto history = m_chat->history(m_systemPrompt);
        startAnswer(appendAnswerRow(), history);
        return true;
    }
    if (m_chat->message(row).role != QLatin1String("assistant"))
        return false;
    const auto history = m_chat->history(m_systemPrompt, row);
    const bool firstVersion = m_chat->message(row).versionCount() == 1;
    const ChatModel::Message before = m_chat->message(row);
    m_chat->beginNewVersion(row);
    m_answerMessage = before.storeId;
    m_answerVersion = 0;
    if (m_storeOpen && m_answerMessage) {
        // All versions live in message_versions; the message row mirrors the one shown.
        m_store.transaction();
        if (firstVersion)
            m_store.appendVersion(m_answerMessage, {0, before.content, before.reasoning, ChatModel::stateName(before.state),
                                                    ChatJson::statsToJson(before)});
        m_answerVersion = m_store.appendVersion(m_answerMessage, {0, {}, {}, QStringLiteral("streaming"), {}});
        m_store.setShownVersion(m_answerMessage, m_chat->message(row).current);
        m_store.commit();
    }
    startAnswer(row, history);
    return true;
}

bool ChatController::editAndResend(int row, const QString &text)
{
    const QString trimmed = text.trimmed();
    if (m_state != State::Ready || trimmed.isEmpty() || row < 0 || row >= m_chat->rowCount() ||
        m_chat->message(row).role != QLatin1String("user"))
        return false;
    const qint64 storeId = m_chat->message(row).storeId;
    m_chat->truncate(row + 1);
    m_chat->setContent(row, trimmed);
    const auto history = m_chat->history(m_systemPrompt);
    if (m_storeOpen && m_conversation && storeId) {
        m_store.transaction();
        m_store.deleteMessagesAfter(m_conversation, storeId);
        m_store.updateMessage(storeId, trimmed, {}, QStringLiteral("done"));
        m_store.commit();
    }
    startAnswer(appendAnswerRow(), history);
    return true;
}

bool ChatController::deleteMessage(int row)
{
    if (answering() || row < 0 || row >= m_chat->rowCount())
        return false;
    const qint64 storeId = m_chat->message(row).storeId;
    if (m_storeOpen && storeId)
        m_store.deleteMessage(storeId);
    m_chat->removeMessage(row);
    return true;
}

bool ChatController::showVersion(int row, int version)
{
    if (row < 0 || row >= m_chat->rowCount() || answering())
        return false;
    const auto &m = m_chat->message(row);
    if (version < 0 || version >= m.versionCount() || version == m.current)
        return false;
    m_chat->setCurrentVersion(row, version);
    if (m_storeOpen && m.storeId)
        m_store.setShownVersion(m.storeId, version);
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
    m_answerVersion = 0;
    m_systemPrompt = hasModel() ? defaultSystemPrompt(m_model.path) : QString();
    emit conversationChanged();
}

bool ChatController::openConversation(qint64 id)
{
    if (!m_storeOpen || answering() || m_state == State::Tuning)
        return false;
    const auto stored = m_store.messages(id);
    m_chat->clear();
    for (const auto &m : stored) {
        ChatModel::Message msg = ChatModel::make(m.role, m.content, ChatModel::stateFromStored(m.state));
        msg.reasoning = m.reasoning;
        msg.storeId = m.id;
        ChatJson::statsFromJson(m.stats, msg);
        for (const auto &v : m.versions) {
            ChatModel::Version ver;
            ver.content = v.content;
            ver.reasoning = v.reasoning;
            ver.state = ChatModel::stateFromStored(v.state);
            ChatJson::statsFromJson(v.stats, ver);
            msg.versions.append(ver);
        }
        if (!msg.versions.isEmpty())
            msg.current = std::clamp(m.version, 0, int(msg.versions.size()) - 1);
        m_chat->appendMessage(msg);
    }
    m_conversation = id;
    m_answerRow = -1;
    // The chat continues with its own system prompt and sampling settings.
    const ChatStore::Conversation c = m_store.conversation(id);
    m_systemPrompt = c.systemPrompt;
    shoehorn::GenerationOptions options = m_options;
    if (ChatJson::optionsFromJson(c.settings, options)) {
        m_options = options;
        emit modelSettingsChanged();
    }
    emit conversationChanged();
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

qint64 ChatController::importConversation(const QByteArray &json, QString *error)
{
    if (!m_storeOpen) {
        if (error)
            *error = m_store.lastError();
        return 0;
    }
    const qint64 id = ChatJson::importJson(json, m_store, error);
    if (id) {
        emit conversationsChanged();
        openConversation(id);
    }
    return id;
}

bool ChatController::relocateConversationModel(qint64 id, const QString &modelPath)
{
    if (!m_storeOpen || !m_store.setConversationModel(id, modelPath))
        return false;
    emit conversationsChanged();
    openModel(modelPath);
    return true;
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
        checkpoint(QStringLiteral("streaming"));
        m_sinceCheckpoint.restart();
    }
}

void ChatController::checkpoint(const QString &state)
{
    const auto &m = m_chat->message(m_answerRow);
    const QString stats = ChatJson::statsToJson(m);
    m_store.updateMessage(m_answerMessage, m.content, m.reasoning, state, stats);
    if (m_answerVersion)
        m_store.updateVersion(m_answerVersion, m.content, m.reasoning, state, stats);
}

void ChatController::onFinished(quint64 id, const shoehorn::GenerationStats &stats)
{
    if (id != m_requestId)
        return;
    const bool stopped = stats.stopReason == shoehorn::StopReason::Cancelled;
    m_chat->finish(m_answerRow, stopped ? ChatModel::State::Stopped : ChatModel::State::Done, &stats);
    if (m_answerMessage && m_answerRow >= 0) {
        checkpoint(stopped ? QStringLiteral("stopped") : QStringLiteral("done"));
        m_answerMessage = 0;
        m_answerVersion = 0;
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
    if (m_answerMessage && m_answerRow >= 0) {
        checkpoint(QStringLiteral("failed")); // what was written before the failure stays readable
        m_answerMessage = 0;
        m_answerVersion = 0;
    }
    m_answerRow = -1;
    if (m_state == State::Generating)
        setState(hasModel() ? State::Ready : State::NoModel);
    emit generationFailed(code, detail);
}
