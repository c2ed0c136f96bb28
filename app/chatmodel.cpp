#include "chatmodel.h"

#include <QVariant>

ChatModel::ChatModel(QObject *parent) : QAbstractListModel(parent) {}

int ChatModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_messages.size());
}

QVariant ChatModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Message &m = m_messages.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case ContentRole: return m.content;
    case RoleRole: return authorName(m.author);
    case ReasoningRole: return m.reasoning;
    case StateRole: return QVariant::fromValue(m.state);
    case StatsRole: return m.hasStats ? QVariant::fromValue(m.stats) : QVariant();
    case VersionRole: return m.current;
    case VersionCountRole: return m.versionCount();
    case ReasoningMsRole: return m.reasoningMs;
    case NoteRole: return m.note;
    case ImagesRole: return QVariant::fromValue(m.images);
    default: return {};
    }
}

QHash<int, QByteArray> ChatModel::roleNames() const
{
    return {{RoleRole, "role"},         {ContentRole, "content"},       {ReasoningRole, "reasoning"},
            {StateRole, "state"},       {StatsRole, "stats"},           {VersionRole, "version"},
            {VersionCountRole, "versionCount"}, {ReasoningMsRole, "reasoningMs"}, {NoteRole, "note"},
            {ImagesRole, "images"}};
}

ChatModel::Message ChatModel::make(Author author, const QString &content, State state)
{
    Message m;
    m.author = author;
    m.content = content;
    m.state = state;
    return m;
}

QString ChatModel::authorName(Author author)
{
    switch (author) {
    case Author::Assistant: return QStringLiteral("assistant");
    case Author::System: return QStringLiteral("system");
    case Author::User: break;
    }
    return QStringLiteral("user");
}

bool ChatModel::authorFromName(const QString &name, Author &out)
{
    for (Author a : {Author::User, Author::Assistant, Author::System})
        if (name == authorName(a)) {
            out = a;
            return true;
        }
    return false;
}

QString ChatModel::stateName(State state)
{
    switch (state) {
    case State::Streaming: return QStringLiteral("streaming");
    case State::Stopped: return QStringLiteral("stopped");
    case State::Failed: return QStringLiteral("failed");
    case State::Done: break;
    }
    return QStringLiteral("done");
}

ChatModel::State ChatModel::stateFromStored(const QString &name)
{
    if (name == QLatin1String("done"))
        return State::Done;
    return name == QLatin1String("failed") ? State::Failed : State::Stopped;
}

namespace {
// Line ends as "\n" only, so text lengths match what views show (Qt makes "\r\n" one break).
void oneLineEnd(QString &text)
{
    // Until none is left: text converted twice has "\r\r\n" for one line end.
    while (text.contains(QLatin1String("\r\n")))
        text.replace(QLatin1String("\r\n"), QLatin1String("\n"));
}

// Appends a batch of streamed text to `to`, "\r\n" as "\n" also where one batch ends with the
// "\r" and the next starts with the "\n".
void appendOneLineEnd(QString &to, QString batch)
{
    oneLineEnd(batch);
    while (batch.startsWith(QLatin1Char('\n')) && to.endsWith(QLatin1Char('\r')))
        to.chop(1);
    to += batch;
}
} // namespace

int ChatModel::appendMessage(const Message &messageIn)
{
    // A stored or imported message may have Windows line ends (streamed text: appendText).
    Message message = messageIn;
    oneLineEnd(message.content);
    oneLineEnd(message.reasoning);
    for (Version &v : message.versions) {
        oneLineEnd(v.content);
        oneLineEnd(v.reasoning);
    }
    const int row = int(m_messages.size());
    beginInsertRows({}, row, row);
    m_messages.append(message);
    endInsertRows();
    if (message.state == State::Streaming)
        m_thinking.invalidate();
    return row;
}

void ChatModel::appendText(int row, const QString &contentIn, const QString &reasoningIn)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    // Line ends as "\n" only, so text lengths match what views show (and the highlighter's runs
    // the code shown).
    QList<int> roles;
    if (!reasoningIn.isEmpty()) {
        if (!m_thinking.isValid())
            m_thinking.start();
        appendOneLineEnd(m.reasoning, reasoningIn);
        roles << ReasoningRole;
    }
    if (!contentIn.isEmpty()) {
        // The answer proper has begun: the thinking is over.
        if (m_thinking.isValid() && m.reasoningMs < 0 && !m.reasoning.isEmpty()) {
            m.reasoningMs = m_thinking.elapsed();
            roles << ReasoningMsRole;
        }
        appendOneLineEnd(m.content, contentIn);
        roles << ContentRole << Qt::DisplayRole;
    }
    if (!roles.isEmpty())
        emit dataChanged(index(row), index(row), roles);
}

void ChatModel::setNote(int row, const QString &note)
{
    if (row < 0 || row >= m_messages.size() || m_messages[row].note == note)
        return;
    m_messages[row].note = note;
    emit dataChanged(index(row), index(row), {NoteRole});
}

void ChatModel::finish(int row, State state, const shoehorn::GenerationStats *stats, const shoehorn::Error &error)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    m.state = state;
    m.error = error;
    m.note.clear();
    QList<int> roles{StateRole, StatsRole, NoteRole};
    if (m.reasoningMs < 0 && !m.reasoning.isEmpty() && m_thinking.isValid()) {
        m.reasoningMs = m_thinking.elapsed();
        roles << ReasoningMsRole;
    }
    m_thinking.invalidate();
    if (stats) {
        m.stats = *stats;
        m.hasStats = true;
    }
    if (!m.versions.isEmpty())
        m.versions[m.current] = m;
    emit dataChanged(index(row), index(row), roles);
}

void ChatModel::beginNewVersion(int row)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    if (m.versions.isEmpty())
        m.versions.append(m);
    else
        m.versions[m.current] = m;
    Version fresh;
    fresh.state = State::Streaming;
    m.versions.append(fresh);
    m.current = int(m.versions.size()) - 1;
    static_cast<Version &>(m) = fresh;
    m_thinking.invalidate();
    emit dataChanged(index(row), index(row)); // all roles: views lay the message out again
}

void ChatModel::setCurrentVersion(int row, int version)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    if (version < 0 || version >= m.versions.size() || version == m.current)
        return;
    m.versions[m.current] = m;
    m.current = version;
    static_cast<Version &>(m) = m.versions.at(version);
    emit dataChanged(index(row), index(row));
}

void ChatModel::setContent(int row, const QString &content)
{
    if (row < 0 || row >= m_messages.size())
        return;
    Message &m = m_messages[row];
    m.content = content;
    oneLineEnd(m.content);
    if (!m.versions.isEmpty())
        m.versions[m.current].content = m.content;
    emit dataChanged(index(row), index(row));
}

void ChatModel::setStoreId(int row, qint64 id)
{
    if (row >= 0 && row < m_messages.size())
        m_messages[row].storeId = id;
}

void ChatModel::setImages(int row, const QList<ChatImage> &images)
{
    if (row < 0 || row >= m_messages.size())
        return;
    m_messages[row].images = images;
    const QModelIndex i = index(row);
    emit dataChanged(i, i, {ImagesRole});
}

void ChatModel::removeMessage(int row)
{
    if (row < 0 || row >= m_messages.size())
        return;
    beginRemoveRows({}, row, row);
    m_messages.removeAt(row);
    endRemoveRows();
}

void ChatModel::truncate(int fromRow)
{
    if (fromRow < 0 || fromRow >= m_messages.size())
        return;
    beginRemoveRows({}, fromRow, int(m_messages.size()) - 1);
    m_messages.erase(m_messages.begin() + fromRow, m_messages.end());
    endRemoveRows();
}

void ChatModel::clear()
{
    if (m_messages.isEmpty())
        return;
    beginResetModel();
    m_messages.clear();
    endResetModel();
}

ChatHistory ChatModel::history(const QString &systemPrompt, int endRow) const
{
    ChatHistory out;
    if (!systemPrompt.isEmpty())
        out.append({authorName(Author::System), systemPrompt});
    const int end = endRow < 0 ? int(m_messages.size()) : std::min(endRow, int(m_messages.size()));
    for (int i = 0; i < end; ++i) {
        const Message &m = m_messages.at(i);
        if (m.state == State::Streaming || m.state == State::Failed)
            continue;
        if (m.author == Author::Assistant && m.content.isEmpty())
            continue;
        out.append({authorName(m.author), m.content, m.reasoning, m.images}); // shared, not copied
    }
    return out;
}
