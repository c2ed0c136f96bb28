#include "attachmentstrip.h"

#include "errortext.h"
#include "visioncontroller.h"

#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
constexpr int kThumb = 56;

QIcon thumbnailIcon(const ChatImage &img)
{
    QImage image;
    image.loadFromData(img.data);
    return QIcon(QPixmap::fromImage(image.scaled(kThumb, kThumb, Qt::KeepAspectRatio, Qt::SmoothTransformation)));
}
} // namespace

AttachmentStrip::AttachmentStrip(VisionController *vision, QWidget *parent) : QWidget(parent), m_vision(vision)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *row = new QHBoxLayout;
    m_thumbs = new QHBoxLayout;
    m_attach = new QToolButton(this);
    m_attach->setObjectName(QStringLiteral("attachImageButton"));
    m_attach->setToolButtonStyle(Qt::ToolButtonTextOnly);
    row->addLayout(m_thumbs);
    row->addWidget(m_attach);
    row->addStretch(1);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("attachmentNote"));
    m_note->setWordWrap(true);
    m_note->hide();
    outer->addLayout(row);
    outer->addWidget(m_note);
    m_choose = [this](QWidget *p) {
        return QFileDialog::getOpenFileNames(p, tr("Attach Images"), QString(),
                                             tr("Images (*.png *.jpg *.jpeg *.bmp *.gif);;All files (*)"));
    };
    connect(m_attach, &QToolButton::clicked, this, [this] { addFiles(m_choose(this)); });
    connect(m_vision, &VisionController::visionChanged, this, &AttachmentStrip::updateNote);
    retranslate();
}

void AttachmentStrip::retranslate()
{
    m_attach->setText(tr("Attach Image…"));
    m_attach->setToolTip(tr("Add pictures to the message (or drop image files on the message box, or paste one)"));
    updateNote();
}

void AttachmentStrip::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void AttachmentStrip::clear()
{
    m_images.clear();
    m_errors.clear();
    rebuild();
}

void AttachmentStrip::addFiles(const QStringList &paths)
{
    m_errors.clear();
    for (const QString &p : paths) {
        auto img = VisionController::imageFromFile(p);
        if (img)
            m_images.append(*img);
        else
            m_errors << ErrorText::message(img.error());
    }
    rebuild();
}

void AttachmentStrip::addImageBytes(const QByteArray &bytes, const QString &what)
{
    m_errors.clear();
    auto img = VisionController::imageFromBytes(bytes);
    if (img)
        m_images.append(*img);
    else
        m_errors << what + QStringLiteral(": ") + ErrorText::message(img.error());
    rebuild();
}

void AttachmentStrip::rebuild()
{
    while (QLayoutItem *item = m_thumbs->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (int i = 0; i < m_images.size(); ++i) {
        const ChatImage img = m_images[i];
        auto *box = new QWidget(this);
        auto *l = new QHBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(0);
        auto *thumb = new QToolButton(box);
        thumb->setObjectName(QStringLiteral("attachmentThumb"));
        thumb->setIcon(thumbnailIcon(img));
        thumb->setIconSize({kThumb, kThumb});
        QImage probe;
        probe.loadFromData(img.data);
        thumb->setToolTip(tr("%1 × %2 pixels, %3 KiB. Click to view.")
                              .arg(probe.width())
                              .arg(probe.height())
                              .arg((img.data.size() + 1023) / 1024));
        connect(thumb, &QToolButton::clicked, this, [this, img] { emit viewRequested(img); });
        auto *remove = new QToolButton(box);
        remove->setObjectName(QStringLiteral("removeAttachment"));
        remove->setText(QStringLiteral("×"));
        remove->setToolTip(tr("Remove this image"));
        remove->setAutoRaise(true);
        connect(remove, &QToolButton::clicked, this, [this, i] {
            m_images.removeAt(i);
            m_errors.clear();
            rebuild();
        });
        l->addWidget(thumb);
        l->addWidget(remove, 0, Qt::AlignTop);
        m_thumbs->addWidget(box);
    }
    updateNote();
    emit imagesChanged();
}

QString AttachmentStrip::problem() const
{
    QStringList lines = m_errors;
    if (!m_images.isEmpty() && !m_vision->canSeeImages()) {
        const VisionSummary &v = m_vision->vision();
        if (!v.path.isEmpty() && v.error)
            lines << tr("This model cannot see images: its vision projector %1 could not be loaded (%2).")
                         .arg(QFileInfo(v.path).fileName(), ErrorText::message(v.error));
        else
            lines << tr("This model cannot see images: no vision projector (mmproj) is paired with it. "
                        "Put its mmproj-*.gguf beside the model, or choose one under Model → Vision Projector.");
    }
    return lines.join(QLatin1Char('\n'));
}

void AttachmentStrip::updateNote()
{
    const QString text = problem();
    m_note->setText(text);
    m_note->setVisible(!text.isEmpty());
}
