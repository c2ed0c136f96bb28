#include "composer.h"

#include "attachmentstrip.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "messageinput.h"
#include "visioncontroller.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

Composer::Composer(ChatController *chat, LoadedModel *model, VisionController *vision, QWidget *parent)
    : QWidget(parent), m_chat(chat), m_model(model), m_vision(vision)
{
    setObjectName(QStringLiteral("composer"));
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    buildEditStrip();
    column->addWidget(m_editStrip);
    m_attachments = new AttachmentStrip(m_vision, this);
    m_attachments->setObjectName(QStringLiteral("attachments"));
    column->addWidget(m_attachments);
    auto *inputRow = new QHBoxLayout;
    m_input = new MessageInput(this);
    m_input->setObjectName(QStringLiteral("messageInput"));
    m_sendButton = new QPushButton(tr("Send"), this);
    m_sendButton->setObjectName(QStringLiteral("sendButton"));
    inputRow->addWidget(m_input, 1);
    inputRow->addWidget(m_sendButton, 0, Qt::AlignBottom);
    column->addLayout(inputRow);
    // Enter sends; while an answer is written it keeps both the answer and what is typed
    // (the Stop button and Esc stop it).
    connect(m_input, &MessageInput::submitted, this, [this] {
        if (m_model->state() == LoadedModel::State::Generating) {
            emit message(tr("The answer is still being written: your message stays here. "
                            "Stop or Esc ends the answer."),
                         5000);
            return;
        }
        sendOrStop();
    });
    connect(m_sendButton, &QPushButton::clicked, this, &Composer::sendOrStop);
    connect(m_input, &MessageInput::imageFilesDropped, m_attachments, &AttachmentStrip::addFiles);
    connect(m_input, &MessageInput::imagePasted, m_attachments,
            [this](const QByteArray &png) { m_attachments->addImageBytes(png, tr("The pasted image")); });
    connect(m_input, &MessageInput::picturePasted, m_attachments,
            [this](const QImage &image) { m_attachments->addPicture(image, tr("The pasted image")); });
    connect(m_attachments, &AttachmentStrip::viewRequested, this, &Composer::imageRequested);
    // The row being edited is a position in this chat: any change of rows ends the edit.
    connect(m_chat, &ChatController::conversationChanged, this, &Composer::cancelEdit);
    connect(m_chat->chatModel(), &QAbstractItemModel::rowsRemoved, this, &Composer::cancelEdit);
    connect(m_chat->chatModel(), &QAbstractItemModel::modelReset, this, &Composer::cancelEdit);
    connect(m_model, &LoadedModel::stateChanged, this, &Composer::onStateChanged);
    onStateChanged();
}

void Composer::buildEditStrip()
{
    // Editing a question: its text is in the box; sending answers it again.
    m_editStrip = new QWidget(this);
    auto *editRow = new QHBoxLayout(m_editStrip);
    editRow->setContentsMargins(0, 0, 0, 0);
    auto *editLabel = new QLabel(tr("Editing your message. Sending it drops the answers that followed."), m_editStrip);
    auto *editCancel = new QPushButton(tr("Cancel editing"), m_editStrip);
    editCancel->setObjectName(QStringLiteral("cancelEditButton"));
    connect(editCancel, &QPushButton::clicked, this, &Composer::cancelEdit);
    editRow->addWidget(editLabel, 1);
    editRow->addWidget(editCancel);
    m_editStrip->hide();
}

void Composer::onStateChanged()
{
    const LoadedModel::State state = m_model->state();
    const bool generating = state == LoadedModel::State::Generating;
    m_sendButton->setText(generating ? tr("Stop") : tr("Send"));
    m_sendButton->setEnabled(generating || state == LoadedModel::State::Ready);
}

void Composer::startEdit(int row)
{
    const ChatModel *chat = m_chat->chatModel();
    if (row < 0 || row >= chat->rowCount() || m_model->state() == LoadedModel::State::Generating)
        return;
    m_editingRow = row;
    m_input->setPlainText(chat->message(row).content);
    m_input->moveCursor(QTextCursor::End);
    m_input->setFocus();
    m_editStrip->show();
}

void Composer::cancelEdit()
{
    if (m_editingRow < 0)
        return;
    m_editingRow = -1;
    m_editStrip->hide();
    m_input->clear();
}

void Composer::sendOrStop()
{
    if (m_model->state() == LoadedModel::State::Generating) {
        emit stopRequested();
        return;
    }
    if (m_editingRow >= 0) {
        if (m_chat->editAndResend(m_editingRow, m_input->toPlainText())) {
            m_editingRow = -1;
            m_editStrip->hide();
            m_input->clear();
        }
        return;
    }
    if (m_attachments->isReading()) {
        emit message(tr("An attached image is still being read: send again in a moment."), 4000);
        return;
    }
    const QList<ChatImage> images = m_attachments->images();
    if (!images.isEmpty() && !m_vision->canSeeImages()) {
        // The strip says why; the text and the images stay.
        emit message(tr("This model cannot see images: the message was not sent."), 6000);
        return;
    }
    if (m_chat->send(m_input->toPlainText(), images)) {
        m_input->clear();
        m_attachments->clear();
    }
}
