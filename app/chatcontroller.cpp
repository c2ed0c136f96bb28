#include "chatcontroller.h"

#include "chatjson.h"
#include "conversationrepository.h"
#include "loadedmodel.h"

#include <QRegularExpression>

using State = ChatController::State;
using Author = ChatModel::Author;

ChatController::ChatController(InferenceSession *session, LoadedModel *model, ConversationRepository *repo,
                               QObject *parent)
    : QObject(parent), m_chat(new ChatModel(this)), m_session(session), m_model(model), m_repo(repo)
{
    connectSession();
    connect(m_repo, &ConversationRepository::failed, this, &ChatController::storageFailed);
    connect(m_repo, &ConversationRepository::questionStored, this, &ChatController::onQuestionStored);
    connect(m_repo, &ConversationRepository::picturesRead, this, &ChatController::onPicturesRead);
    connect(m_repo, &ConversationRepository::imported, this, &ChatController::onImported);
    connect(m_repo, &ConversationRepository::removed, this, &ChatController::onRemoved);
    connect(m_model, &LoadedModel::modelLoaded, this, &ChatController::onModelLoaded);
    // Settings changed while a chat is open are the chat's from then on (its sampling part).
    connect(m_model, &LoadedModel::settingsEdited, this, &ChatController::storeChatSettings);
}

ChatController::~ChatController() = default;

void ChatController::connectSession()
{
    connect(m_session, &InferenceSession::delta, this, &ChatController::onDelta);
    connect(m_session, &InferenceSession::prefillProgress, this, [this](int done, int total) {
        if (m_answerRow >= 0) // the answer being written says what it waits for
            m_chat->setNote(m_answerRow, m_prompt.update(done, total));
        emit prefillProgress(done, total);
    });
    connect(m_session, &InferenceSession::imageProgress, this, [this](int number, int count) {
        if (m_answerRow >= 0)
            m_chat->setNote(m_answerRow, PromptProgress::image(number, count));
    });
    connect(m_session, &InferenceSession::generationProgress, this, &ChatController::generationProgress);
    connect(m_session, &InferenceSession::generationFinished, this, &ChatController::onFinished);
    connect(m_session, &InferenceSession::generationFailed, this, &ChatController::onFailed);
}

shoehorn::GenerationOptions ChatController::generationOptions() const
{
    return m_model->generationOptions();
}

void ChatController::setSystemPrompt(const QString &s)
{
    m_systemPrompt = s;
    storeChatSettings();
}

void ChatController::storeChatSettings()
{
    settleBackgroundWork();
    if (m_conversation)
        m_repo->setSettings(m_conversation, m_systemPrompt, ChatJson::optionsToJson(generationOptions()));
}

QString ChatController::conversationTitle() const
{
    return m_conversation ? m_repo->conversation(m_conversation).title : QString();
}

void ChatController::onModelLoaded(const ModelSummary &summary)
{
    // A new chat starts with the model's own system prompt.
    if (m_chat->rowCount() == 0 && m_conversation == 0)
        m_systemPrompt = m_model->defaultSystemPrompt(summary.path);
}

bool ChatController::send(const QString &text, const QList<ChatImage> &images)
{
    const QString trimmed = text.trimmed();
    if (state() != State::Ready || (trimmed.isEmpty() && images.isEmpty()))
        return false;
    // Images only go to a model that can read them; the caller keeps what was typed.
    if (!images.isEmpty() && !m_session->vision().ready)
        return false;
    settleBackgroundWork(true);
    ensureConversation(trimmed.isEmpty() ? tr("Image") : trimmed);
    ChatModel::Message question = ChatModel::make(Author::User, trimmed);
    question.images = images;
    const int row = m_chat->appendMessage(question);
    auto history = m_chat->history(m_systemPrompt);
    if (images.isEmpty()) {
        // The question is committed at once.
        m_chat->setStoreId(row, m_repo->appendMessage(m_conversation, Author::User, trimmed, ChatModel::State::Done));
        startAnswer(appendAnswerRow(), std::move(history));
        return true;
    }
    // A photo's bytes take tens of ms to store: the question and its answer's row are committed on
    // the pool, and the answer's writes begin when their ids come (onQuestionStored).
    const int answer = m_chat->appendMessage(ChatModel::make(Author::Assistant, {}, ChatModel::State::Streaming));
    m_answerMessage = 0;
    m_answerVersion = 0;
    m_storing = {m_repo->storeQuestionInBackground(m_conversation, trimmed, images), row, answer};
    startAnswer(answer, std::move(history));
    return true;
}

void ChatController::onQuestionStored(quint64 ticket, qint64 questionId, qint64 answerId)
{
    if (!ticket || ticket != m_storing.ticket)
        return;
    const Storing storing = std::exchange(m_storing, {});
    if (!questionId)
        return; // failed() said why; the chat goes on unsaved
    m_chat->setStoreId(storing.questionRow, questionId);
    m_chat->setStoreId(storing.answerRow, answerId);
    if (m_answerRow == storing.answerRow) {
        m_answerMessage = answerId; // still streaming: checkpointed from now on
        return;
    }
    // The answer ended first: its last write, as endAnswer() makes it.
    m_repo->saveAnswer(answerId, 0, m_chat->message(storing.answerRow));
    emit conversationsChanged();
}

void ChatController::onPicturesRead(quint64 ticket, const QHash<qint64, QList<ChatImage>> &pictures)
{
    if (!ticket || ticket != m_readingPictures)
        return;
    m_readingPictures = 0;
    for (int row = 0; row < m_chat->rowCount(); ++row) {
        const ChatModel::Message &m = m_chat->message(row);
        if (const auto it = pictures.constFind(m.storeId); it != pictures.cend() && !m.images.isEmpty())
            m_chat->setImages(row, *it);
    }
}

void ChatController::settleBackgroundWork(bool forATurn)
{
    // The user acted within the few ms a photo takes to store or read. A question being stored:
    // what follows needs its rows' ids, and a write now would wait for SQLite's lock anyway. The
    // open chat's pictures being read: a turn needs their bytes; anything else goes on without
    // them (they come by message id, wherever the rows are then).
    if (m_storing.ticket)
        m_repo->finishBackgroundWork(m_storing.ticket);
    if (forATurn && m_readingPictures)
        m_repo->finishBackgroundWork(m_readingPictures);
    // A chat being imported or deleted on the pool is not waited for: its result would come in
    // the middle of this action (an import opens its chat); a write here waits for SQLite's lock.
}

int ChatController::appendAnswerRow()
{
    const int row = m_chat->appendMessage(ChatModel::make(Author::Assistant, {}, ChatModel::State::Streaming));
    m_answerMessage = m_repo->appendMessage(m_conversation, Author::Assistant, {}, ChatModel::State::Streaming);
    m_answerVersion = 0;
    m_chat->setStoreId(row, m_answerMessage);
    return row;
}

QString ChatController::autoTitle(const QString &firstText)
{
    // The words, not Markdown's marks: "# Heading **bold** `code` ```python print(1" was a title.
    // Marks are taken out in pairs around words ("2*3", "*.cpp" and "char *p" stay).
    static const QRegularExpression fence(QStringLiteral("```[^\\n]*"));
    static const QRegularExpression link(QStringLiteral("!?\\[([^\\]\\n]*)\\]\\([^)\\n]*\\)"));
    static const QRegularExpression lineMark(QStringLiteral("(^|\\n)[ \\t]*(#{1,6}|>+|[-*+]|\\d+[.)])[ \\t]+"));
    static const QRegularExpression emphasis(QStringLiteral("(\\*{1,3}|~~)(?=\\S)([^\\n]*?\\S)\\1"));
    static const QRegularExpression code(QStringLiteral("`+([^`\\n]*)`+"));
    QString t = firstText.left(2000); // a title needs the start; the patterns need not read a book
    t.replace(fence, QStringLiteral(" ")); // the code inside stays: it may be all the question says
    t.replace(link, QStringLiteral("\\1"));
    t.replace(lineMark, QStringLiteral("\\1"));
    t.replace(emphasis, QStringLiteral("\\2"));
    t.replace(code, QStringLiteral("\\1"));
    t = t.simplified();
    if (t.isEmpty()) // marks alone: better them than no title
        t = firstText.left(2000).simplified();
    if (t.size() <= 60)
        return t;
    int cut = 59;
    if (t.at(cut - 1).isHighSurrogate()) // not half an emoji
        --cut;
    return t.left(cut).trimmed() + QChar(0x2026);
}

void ChatController::ensureConversation(const QString &firstText)
{
    if (!m_repo->isOpen() || m_conversation != 0)
        return;
    m_conversation = m_repo->createConversation(autoTitle(firstText), m_model->model().path,
                                                m_systemPrompt, ChatJson::optionsToJson(generationOptions()));
    if (m_conversation) {
        m_model->setChatSampling(generationOptions()); // the chat keeps them from now on
        emit conversationsChanged();
    }
}

void ChatController::startAnswer(int row, ChatHistory history)
{
    m_answerRow = row;
    m_chat->setNote(row, PromptProgress::starting());
    m_sinceCheckpoint.start();
    m_session->generate(std::move(history), generationOptions());
}

bool ChatController::regenerate(int row)
{
    if (state() != State::Ready || row != m_chat->rowCount() - 1)
        return false;
    settleBackgroundWork(true);
    const ChatModel::Message before = m_chat->message(row);
    if (before.author == Author::User) {
        // The answer was deleted (or never came): answer the last question.
        auto history = m_chat->history(m_systemPrompt);
        startAnswer(appendAnswerRow(), std::move(history));
        return true;
    }
    if (before.author != Author::Assistant)
        return false;
    auto history = m_chat->history(m_systemPrompt, row);
    m_chat->beginNewVersion(row);
    m_answerMessage = before.storeId;
    m_answerVersion = m_repo->beginVersion(m_answerMessage, before.versionCount() == 1 ? &before : nullptr,
                                           m_chat->message(row).current);
    startAnswer(row, std::move(history));
    return true;
}

bool ChatController::editAndResend(int row, const QString &text)
{
    const QString trimmed = text.trimmed();
    if (state() != State::Ready || trimmed.isEmpty() || row < 0 || row >= m_chat->rowCount() ||
        m_chat->message(row).author != Author::User)
        return false;
    settleBackgroundWork(true);
    const qint64 storeId = m_chat->message(row).storeId;
    const QString before = m_chat->message(row).content;
    m_chat->truncate(row + 1);
    m_chat->setContent(row, trimmed);
    auto history = m_chat->history(m_systemPrompt);
    m_repo->editQuestion(m_conversation, storeId, trimmed);
    // A title made from the question (by this autoTitle or the one before it, which cut at 60 and
    // kept Markdown) follows the edit; one the user gave stays.
    if (row == 0 && m_conversation &&
        (conversationTitle() == autoTitle(before) || conversationTitle() == before.left(60).simplified()))
        renameConversation(m_conversation, autoTitle(trimmed));
    startAnswer(appendAnswerRow(), std::move(history));
    return true;
}

bool ChatController::deleteMessage(int row)
{
    if (answering() || row < 0 || row >= m_chat->rowCount())
        return false;
    settleBackgroundWork(); // its own write runs on the pool
    if (const quint64 ticket = m_repo->deleteMessageInBackground(m_chat->message(row).storeId))
        m_deleting.insert(ticket, {m_conversation, false});
    m_chat->removeMessage(row);
    return true;
}

bool ChatController::showVersion(int row, int version)
{
    if (row < 0 || row >= m_chat->rowCount() || answering())
        return false;
    settleBackgroundWork();
    const auto &m = m_chat->message(row);
    if (version < 0 || version >= m.versionCount() || version == m.current)
        return false;
    m_chat->setCurrentVersion(row, version);
    m_repo->setShownVersion(m.storeId, version);
    return true;
}

void ChatController::stop()
{
    m_session->stop();
}

void ChatController::newChat()
{
    stop();
    settleBackgroundWork();
    m_readingPictures = 0; // the chat is left: its pictures' late bytes are dropped
    m_chat->clear();
    m_answerRow = -1;
    m_conversation = 0;
    m_answerMessage = 0;
    m_answerVersion = 0;
    m_systemPrompt = m_model->hasModel() ? m_model->defaultSystemPrompt(m_model->model().path) : QString();
    m_model->setChatSampling(std::nullopt); // the next chat starts with the model's own
    emit conversationChanged();
}

bool ChatController::openConversation(qint64 id)
{
    if (!m_repo->isOpen() || answering() || state() == State::Tuning)
        return false;
    for (auto it = m_deleting.cbegin(); it != m_deleting.cend(); ++it)
        if (it->conversation == id && it->whole)
            return false; // going: its rows would be read as they are deleted
    // A message of it being deleted: its row must not be read back (milliseconds).
    for (const quint64 ticket : m_deleting.keys())
        if (m_deleting.value(ticket).conversation == id)
            m_repo->finishBackgroundWork(ticket);
    settleBackgroundWork(); // the pictures of the chat shown before are dropped below
    m_chat->clear();
    bool pictures = false;
    for (const auto &msg : m_repo->messages(id)) {
        m_chat->appendMessage(msg); // its pictures' types; their bytes are read on the pool
        pictures = pictures || !msg.images.isEmpty();
    }
    m_readingPictures = pictures ? m_repo->readPicturesInBackground(id) : 0;
    m_conversation = id;
    m_answerRow = -1;
    // The chat continues with its own system prompt and sampling settings.
    const ChatStore::Conversation c = m_repo->conversation(id);
    m_systemPrompt = c.systemPrompt;
    shoehorn::GenerationOptions sampling = generationOptions();
    if (ChatJson::optionsFromJson(c.settings, sampling))
        m_model->setChatSampling(sampling);
    else
        m_model->setChatSampling(std::nullopt);
    emit conversationChanged();
    return true;
}

bool ChatController::renameConversation(qint64 id, const QString &title)
{
    settleBackgroundWork();
    const bool ok = m_repo->rename(id, title);
    if (ok)
        emit conversationsChanged();
    return ok;
}

bool ChatController::deleteConversation(qint64 id)
{
    // The question being stored is deleted with its chat, not after it; the delete runs on the
    // pool, after what runs there.
    settleBackgroundWork();
    if (!m_repo->writable())
        return false;
    if (id == m_conversation)
        newChat();
    m_deleting.insert(m_repo->removeInBackground(id), {id, true});
    return true;
}

void ChatController::onRemoved(quint64 ticket)
{
    if (m_deleting.remove(ticket)) // failed() said why when it did not go
        emit conversationsChanged();
}

void ChatController::importConversation(const QString &filePath, QObject *context, ImportDone done)
{
    settleBackgroundWork();
    m_importing.insert(m_repo->importInBackground(filePath), {context, std::move(done)});
}

void ChatController::onImported(quint64 ticket, const shoehorn::Result<qint64> &conversation)
{
    const auto it = m_importing.constFind(ticket);
    if (it == m_importing.cend())
        return;
    const Importing importing = *it;
    m_importing.erase(it);
    if (conversation) {
        emit conversationsChanged();
        openConversation(*conversation); // not while an answer streams: then it is listed
    }
    if (importing.context)
        importing.done(conversation);
}

bool ChatController::relocateConversationModel(qint64 id, const QString &modelPath)
{
    settleBackgroundWork();
    if (!m_repo->setModel(id, modelPath))
        return false;
    emit conversationsChanged();
    return true;
}

void ChatController::onDelta(const QString &content, const QString &reasoning)
{
    if (m_answerRow < 0)
        return;
    m_chat->appendText(m_answerRow, content, reasoning);
    // Checkpoint the growing answer about once a second: a crash loses at most that much.
    if (m_answerMessage && m_sinceCheckpoint.elapsed() >= 1000) {
        checkpoint();
        m_sinceCheckpoint.restart();
    }
}

void ChatController::checkpoint()
{
    if (m_answerMessage && m_answerRow >= 0)
        m_repo->saveAnswer(m_answerMessage, m_answerVersion, m_chat->message(m_answerRow));
}

void ChatController::endAnswer(ChatModel::State state, const shoehorn::GenerationStats *stats,
                               const shoehorn::Error &error)
{
    if (m_answerRow < 0)
        return;
    m_chat->finish(m_answerRow, state, stats, error);
    if (m_answerMessage) {
        checkpoint(); // a failed answer keeps what was written before the failure
        m_answerMessage = 0;
        m_answerVersion = 0;
        emit conversationsChanged();
    }
    m_answerRow = -1;
}

void ChatController::onFinished(const shoehorn::GenerationStats &stats)
{
    const bool stopped = stats.stopReason == shoehorn::StopReason::Cancelled;
    endAnswer(stopped ? ChatModel::State::Stopped : ChatModel::State::Done, &stats);
    emit answerFinished(stats);
}

void ChatController::onFailed(const shoehorn::Error &error)
{
    endAnswer(ChatModel::State::Failed, nullptr, error);
    emit generationFailed(error);
}
