#include "conversationrepository.h"

#include "chatjson.h"
#include "workpool.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent>

#include <algorithm>
#include <memory>
#include <optional>

using State = ChatModel::State;
using Done = ChatStore::Done;

namespace {
QString reason(const shoehorn::Error &e)
{
    return QString::fromStdString(e.detail);
}

struct StoredQuestion {
    qint64 question = 0;
    qint64 answer = 0;
    shoehorn::Error error;
};

using Pictures = QHash<qint64, QList<ChatImage>>;

// Several writes as one commit, rolled back whole when one fails (that failure is the one
// returned): the repository's writes and the pool's.
Done inOneCommit(ChatStore &store, const std::function<Done()> &writes)
{
    Done done = store.transaction();
    if (!done)
        return done;
    done = writes();
    if (done)
        done = store.commit();
    if (!done)
        (void) store.rollback();
    return done;
}

// On the pool: the question and its answer's row through a connection of this thread's own.
StoredQuestion storeQuestion(const QString &path, const ChatStore::Message &question, const ChatStore::Message &answer)
{
    ChatStore store;
    StoredQuestion stored;
    Done done = store.open(path);
    if (done)
        done = inOneCommit(store, [&]() -> Done {
            const auto q = store.appendMessage(question.conversationId, question);
            if (!q)
                return q.error();
            const auto a = store.appendMessage(answer.conversationId, answer);
            if (!a)
                return a.error();
            stored = {*q, *a, {}};
            return {};
        });
    return done ? stored : StoredQuestion{0, 0, done.error()};
}
} // namespace

ConversationRepository::ConversationRepository(QObject *parent) : QObject(parent) {}

HistoryProblem ConversationRepository::open(const QString &path)
{
    m_problem = {};
    m_problem.path = path;
    m_path = path;
    // PRAGMA integrity_check reads the whole file: 1.2-1.4 s for a 200 MB history from a cold
    // disk, before the window shows. It runs when a WAL is left beside the history: the last run
    // did not close it (killed, or the machine lost power). A clean close leaves none (SQLite
    // removes it with the last connection); damage met later fails the write that meets it.
    const bool closedUncleanly = QFileInfo::exists(path + QStringLiteral("-wal"));
    const Done opened = m_store.open(path);
    m_open = opened && (m_store.readOnly() || !closedUncleanly || m_store.integrityOk());
    if (m_open && !m_store.readOnly())
        (void) m_store.setAutoCheckpoint(false); // else SQLite's own, in a commit: still correct
    if (m_open) {
        if (m_store.readOnly()) {
            m_problem.kind = HistoryProblem::Kind::ReadOnlyNewer;
            m_problem.reason = QStringLiteral("schema version %1 is newer than this Shoehorn's %2")
                                   .arg(m_store.schemaVersion())
                                   .arg(ChatStore::kSchemaVersion);
        } else if (const auto n = m_store.markInterruptedAnswers(); n && *n)
            qInfo("%d answer(s) interrupted by a crash are marked stopped", *n);
        else if (!n)
            qWarning("answers interrupted by a crash could not be marked stopped: %s", n.error().detail.c_str());
        return m_problem;
    }
    const QString why = opened ? QString() : reason(opened.error()); // empty: the integrity check failed
    m_store.close();
    openFresh(path, why);
    return m_problem;
}

void ConversationRepository::openFresh(const QString &path, const QString &why)
{
    m_problem.reason = why;
    if (!QFileInfo::exists(path)) {
        m_problem.kind = HistoryProblem::Kind::CannotCreate;
        return;
    }
    // Never overwritten: the old file (and its WAL) is kept beside, for recovery.
    const QString aside = path + QStringLiteral(".unreadable-") +
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    if (!QFile::rename(path, aside)) {
        m_problem.kind = HistoryProblem::Kind::CannotMoveAside;
        return;
    }
    for (const char *suffix : {"-wal", "-shm"})
        QFile::rename(path + QLatin1String(suffix), aside + QLatin1String(suffix));
    const Done fresh = m_store.open(path);
    m_open = fresh.ok();
    if (m_open)
        (void) m_store.setAutoCheckpoint(false);
    m_problem.kind = m_open ? HistoryProblem::Kind::MovedAside : HistoryProblem::Kind::MovedAsideNoNew;
    m_problem.movedTo = aside;
    if (!m_open)
        m_problem.newReason = reason(fresh.error());
}

bool ConversationRepository::check(const Done &done, Write what)
{
    if (!done)
        emit failed(what, done.error());
    else
        wrote();
    return done.ok();
}

void ConversationRepository::wrote()
{
    if (++m_writesSinceCheckpoint < kCheckpointWrites || m_checkpointing->exchange(true))
        return;
    m_writesSinceCheckpoint = 0;
    // Not one of the jobs finishBackgroundWork waits for: nothing the user does needs it.
    (void) QtConcurrent::run(workPool(), [path = m_path, running = m_checkpointing] {
        ChatStore store;
        if (const Done opened = store.open(path); opened)
            if (const Done done = store.checkpoint(); !done)
                qWarning("chat history checkpoint: %s", done.error().detail.c_str());
        *running = false;
    });
}

bool ConversationRepository::inTransaction(Write what, const std::function<Done()> &writes)
{
    if (!writable())
        return false; // read-only history: said once, when it was opened
    return check(inOneCommit(m_store, writes), what);
}

qint64 ConversationRepository::createConversation(const QString &title, const QString &modelPath,
                                                  const QString &systemPrompt, const QString &settingsJson)
{
    qint64 id = 0;
    const bool ok = inTransaction(Write::NewChat, [&]() -> Done {
        const auto created = m_store.createConversation(title, modelPath, systemPrompt);
        if (!created)
            return created.error();
        id = *created;
        return m_store.setConversationSettings(id, systemPrompt, settingsJson);
    });
    return ok ? id : 0; // rolled back: the id names nothing
}

ChatStore::Conversation ConversationRepository::conversation(qint64 id) const
{
    return m_open ? m_store.conversation(id) : ChatStore::Conversation{};
}

QList<ChatModel::Message> ConversationRepository::messages(qint64 conversationId) const
{
    QList<ChatModel::Message> out;
    if (!m_open)
        return out;
    for (const auto &m : m_store.messages(conversationId, false)) {
        ChatModel::Author author;
        if (!ChatModel::authorFromName(m.role, author))
            continue; // not written by Shoehorn: show what can be shown
        ChatModel::Message msg = ChatModel::make(author, m.content, ChatModel::stateFromStored(m.state));
        msg.reasoning = m.reasoning;
        msg.storeId = m.id;
        msg.images = m.images; // their types: the bytes come from readPicturesInBackground()
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
        out.append(msg);
    }
    return out;
}

bool ConversationRepository::setSettings(qint64 conversationId, const QString &systemPrompt,
                                         const QString &settingsJson)
{
    return writable() && check(m_store.setConversationSettings(conversationId, systemPrompt, settingsJson),
                           Write::ChatSettings);
}

bool ConversationRepository::rename(qint64 conversationId, const QString &title)
{
    return writable() && check(m_store.renameConversation(conversationId, title), Write::ChatName);
}

bool ConversationRepository::remove(qint64 conversationId)
{
    return writable() && check(m_store.deleteConversation(conversationId), Write::DeletingChat);
}

bool ConversationRepository::setModel(qint64 conversationId, const QString &modelPath)
{
    return writable() && check(m_store.setConversationModel(conversationId, modelPath), Write::ChatModel);
}

shoehorn::Error ConversationRepository::notWritable() const
{
    // Why it is not writable: a new history that could not be made says why last.
    const QString why = !m_problem.newReason.isEmpty() ? m_problem.newReason
                        : !m_problem.reason.isEmpty()  ? m_problem.reason
                                                       : QStringLiteral("the chat history is not open");
    return {shoehorn::ErrorCode::FileUnwritable, why.toStdString()};
}

shoehorn::Result<qint64> ConversationRepository::importJson(const QByteArray &json)
{
    if (!writable())
        return notWritable();
    return ChatJson::importJson(json, m_store);
}

qint64 ConversationRepository::appendMessage(qint64 conversationId, ChatModel::Author author, const QString &content,
                                             State state, const QList<ChatImage> &images)
{
    if (!writable() || !conversationId)
        return 0;
    ChatStore::Message m =
        ChatStore::message(conversationId, ChatModel::authorName(author), content, ChatModel::stateName(state));
    m.images = images;
    const auto id = m_store.appendMessage(conversationId, m);
    if (!id) {
        check(id.error(), author == ChatModel::Author::User ? Write::Question : Write::Answer);
        return 0;
    }
    wrote();
    return *id;
}

template <class T>
quint64 ConversationRepository::inBackground(std::function<T()> job, std::function<void(quint64, const T &)> deliver)
{
    const quint64 ticket = ++m_lastTicket;
    auto *watcher = new QFutureWatcher<T>(this);
    auto delivered = std::make_shared<bool>(false);
    const auto finish = [this, watcher, ticket, deliver, delivered] {
        if (*delivered)
            return;
        *delivered = true;
        watcher->waitForFinished(); // at once, unless quitting
        m_running.removeIf([ticket](const Running &r) { return r.ticket == ticket; });
        deliver(ticket, watcher->result());
        watcher->deleteLater();
    };
    connect(watcher, &QFutureWatcherBase::finished, this, finish);
    m_running.append({ticket, finish});
    watcher->setFuture(QtConcurrent::run(workPool(), std::move(job)));
    return ticket;
}

void ConversationRepository::finishBackgroundWork(quint64 ticket)
{
    for (;;) {
        const auto it = std::find_if(m_running.cbegin(), m_running.cend(),
                                     [ticket](const Running &r) { return !ticket || r.ticket == ticket; });
        if (it == m_running.cend())
            return;
        const auto finish = it->finish; // it removes its entry
        finish();
    }
}

quint64 ConversationRepository::storeQuestionInBackground(qint64 conversationId, const QString &content,
                                                          const QList<ChatImage> &images)
{
    if (!writable() || !conversationId)
        return 0;
    ChatStore::Message question = ChatStore::message(conversationId, ChatModel::authorName(ChatModel::Author::User),
                                                     content, ChatModel::stateName(State::Done));
    question.images = images;
    const ChatStore::Message answer = ChatStore::message(
        conversationId, ChatModel::authorName(ChatModel::Author::Assistant), {}, ChatModel::stateName(State::Streaming));
    return inBackground<StoredQuestion>(
        [path = m_path, question, answer] { return storeQuestion(path, question, answer); },
        [this](quint64 ticket, const StoredQuestion &stored) {
            if (!stored.question)
                emit failed(Write::Question, stored.error);
            emit questionStored(ticket, stored.question, stored.answer);
        });
}

quint64 ConversationRepository::readPicturesInBackground(qint64 conversationId)
{
    if (!m_open || !conversationId)
        return 0;
    using Read = shoehorn::Result<Pictures>;
    return inBackground<Read>(
        [path = m_path, conversationId]() -> Read {
            ChatStore store;
            if (const Done opened = store.open(path); !opened)
                return opened.error();
            return store.pictures(conversationId);
        },
        [this, conversationId](quint64 ticket, const Read &read) {
            if (read) {
                emit picturesRead(ticket, *read);
                return;
            }
            // Without them a turn would send the model empty pictures: read them here (rare).
            qWarning("the chat's pictures could not be read on the pool (%s): reading them here",
                     read.error().detail.c_str());
            const Read again = m_store.pictures(conversationId);
            emit picturesRead(ticket, again ? *again : Pictures{});
        });
}

quint64 ConversationRepository::importInBackground(const QString &filePath)
{
    using Imported = shoehorn::Result<qint64>;
    const std::optional<shoehorn::Error> refused = writable() ? std::nullopt : std::optional(notWritable());
    return inBackground<Imported>(
        [path = m_path, filePath, refused]() -> Imported {
            const auto json = ChatJson::readFile(filePath);
            if (!json)
                return json.error();
            if (refused)
                return *refused;
            ChatStore store;
            if (const Done opened = store.open(path); !opened)
                return opened.error();
            return ChatJson::importJson(*json, store);
        },
        [this](quint64 ticket, const Imported &conversation) { emit imported(ticket, conversation); });
}

quint64 ConversationRepository::deleteInBackground(Write what, std::function<Done(ChatStore &)> remove)
{
    if (!writable())
        return 0;
    return inBackground<Done>(
        [path = m_path, remove]() -> Done {
            ChatStore store;
            if (const Done opened = store.open(path); !opened)
                return opened;
            return remove(store);
        },
        [this, what](quint64 ticket, const Done &done) {
            // A row deleted meanwhile by another delete (its chat, queued beside it) is gone as asked.
            const bool gone = !done && done.error().code == shoehorn::ErrorCode::InvalidArgument;
            emit removed(ticket, gone || check(done, what));
        });
}

quint64 ConversationRepository::removeInBackground(qint64 conversationId)
{
    return deleteInBackground(Write::DeletingChat,
                              [conversationId](ChatStore &s) { return s.deleteConversation(conversationId); });
}

quint64 ConversationRepository::deleteMessageInBackground(qint64 messageId)
{
    if (!messageId)
        return 0;
    return deleteInBackground(Write::DeletingMessage, [messageId](ChatStore &s) { return s.deleteMessage(messageId); });
}

bool ConversationRepository::saveAnswer(qint64 messageId, qint64 versionId, const ChatModel::Version &answer)
{
    if (!m_open || !messageId)
        return false;
    const QString state = ChatModel::stateName(answer.state);
    const QString stats = ChatJson::statsToJson(answer);
    return inTransaction(Write::Answer, [&]() -> Done {
        const Done message = m_store.updateMessage(messageId, answer.content, answer.reasoning, state, stats);
        if (!message || !versionId)
            return message;
        return m_store.updateVersion(versionId, answer.content, answer.reasoning, state, stats);
    });
}

qint64 ConversationRepository::beginVersion(qint64 messageId, const ChatModel::Version *firstVersion, int shownIndex)
{
    qint64 id = 0;
    if (!m_open || !messageId)
        return 0;
    // All versions live in message_versions; the message row mirrors the one shown.
    const bool ok = inTransaction(Write::NewVersion, [&]() -> Done {
        if (firstVersion) {
            const auto first = m_store.appendVersion(messageId, {0, firstVersion->content, firstVersion->reasoning,
                                                                 ChatModel::stateName(firstVersion->state),
                                                                 ChatJson::statsToJson(*firstVersion)});
            if (!first)
                return first.error();
        }
        const auto added = m_store.appendVersion(messageId, {0, {}, {}, ChatModel::stateName(State::Streaming), {}});
        if (!added)
            return added.error();
        id = *added;
        return m_store.setShownVersion(messageId, shownIndex);
    });
    return ok ? id : 0;
}

bool ConversationRepository::editQuestion(qint64 conversationId, qint64 messageId, const QString &text)
{
    if (!m_open || !conversationId || !messageId)
        return false;
    return inTransaction(Write::EditedQuestion, [&]() -> Done {
        if (const Done dropped = m_store.deleteMessagesAfter(conversationId, messageId); !dropped)
            return dropped;
        return m_store.updateMessage(messageId, text, {}, ChatModel::stateName(State::Done));
    });
}

bool ConversationRepository::deleteMessage(qint64 messageId)
{
    return writable() && messageId && check(m_store.deleteMessage(messageId), Write::DeletingMessage);
}

bool ConversationRepository::setShownVersion(qint64 messageId, int index)
{
    return writable() && messageId && check(m_store.setShownVersion(messageId, index), Write::ShownVersion);
}
