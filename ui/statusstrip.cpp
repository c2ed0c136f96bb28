#include "statusstrip.h"

#include "chatcontroller.h"
#include "chatmodel.h"
#include "loadedmodel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>

#include <utility>

StatusStrip::StatusStrip(LoadedModel *model, ChatController *chat, QWidget *parent)
    : QWidget(parent), m_loaded(model), m_chat(chat), m_model(new QLabel(this)), m_stats(new QLabel(this)),
      m_context(new QProgressBar(this))
{
    m_model->setObjectName(QStringLiteral("modelLabel"));
    m_stats->setObjectName(QStringLiteral("statsLabel"));
    m_context->setObjectName(QStringLiteral("contextBar"));
    m_context->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("context 262144 / 262144")) + 24);
    m_context->setMaximumWidth(m_context->minimumWidth());
    m_context->setTextVisible(true);
    m_context->setRange(0, 1);
    m_context->setValue(0);
    m_context->setFormat(tr("context"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_model, 1);
    row->addWidget(m_stats);
    row->addWidget(m_context);

    connect(chat, &ChatController::prefillProgress, this, &StatusStrip::onPrefill);
    connect(chat, &ChatController::generationProgress, this, [this](double tps, int used, int size) {
        if (!m_chat->answering()) // the chat was left (New, another one): its late figures are not this one's
            return;
        showBusy(tr("Writing · %1 tok/s").arg(tps, 0, 'f', 1));
        setContext(used, size);
    });
    // The answer's figures are stored in its message by now: shown from the chat shown, so an
    // answer stopped by a switch to another chat does not write over that chat's.
    connect(chat, &ChatController::answerFinished, this, &StatusStrip::showChat);
    connect(model, &LoadedModel::modelLoaded, this, [this] {
        showChat();
        updateModel();
    });
    // Another chat (New, a stored one, a deletion): the figures of the one shown, not of the one
    // before (an empty new chat read "context 2047 / 2048" and the last answer's speed).
    connect(chat, &ChatController::conversationChanged, this, &StatusStrip::showChat);
    connect(model, &LoadedModel::stateChanged, this, [this](LoadedModel::State state) {
        if (state == LoadedModel::State::Tuning)
            showBusy(tr("The model is busy: auto-tune is running."));
        else if (state == LoadedModel::State::Generating)
            showBusy(PromptProgress::starting()); // at once, before the template is even applied
        else if ((state == LoadedModel::State::Ready || state == LoadedModel::State::NoModel) &&
                 std::exchange(m_busy, false))
            m_stats->clear(); // "Reading the prompt…" stayed after a failed answer, "busy" after a tune
        updateModel();
    });
    updateModel();
}

void StatusStrip::onPrefill(int done, int total)
{
    if (!m_chat->answering()) // a chat left while its prompt was read (see generationProgress)
        return;
    showBusy(m_prompt.update(done, total));
}

void StatusStrip::showBusy(const QString &text)
{
    m_stats->setText(text);
    m_busy = true;
}

void StatusStrip::showChat()
{
    m_stats->clear();
    m_busy = false;
    if (!m_loaded->hasModel())
        return;
    const ChatModel *chat = m_chat->chatModel();
    const shoehorn::GenerationStats *last = nullptr;
    for (int row = chat->rowCount() - 1; row >= 0 && !last; --row)
        if (chat->message(row).hasStats)
            last = &chat->message(row).stats;
    setContext(last ? last->contextUsed : 0, m_loaded->model().contextSize);
    if (last)
        m_stats->setText(tr("Last answer: %1 tok/s").arg(last->generationTokensPerSecond, 0, 'f', 1));
}

void StatusStrip::setContext(int used, int size)
{
    m_context->setRange(0, std::max(size, 1));
    m_context->setValue(used);
    m_context->setFormat(tr("context %1 / %2").arg(used).arg(size));
}

void StatusStrip::updateModel()
{
    m_context->setVisible(m_loaded->hasModel()); // an empty bar says nothing
    if (!m_loaded->hasModel()) {
        m_model->setText(tr("No model loaded"));
        return;
    }
    const ModelSummary &m = m_loaded->model();
    m_model->setText(tr("%1 · %2 · context %3").arg(m.name, m.quantization).arg(m.contextSize));
}
