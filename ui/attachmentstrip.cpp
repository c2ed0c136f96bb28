#include "attachmentstrip.h"

#include "imagefit.h"
#include "workpool.h"

#include "asyncdialogs.h"
#include "errortext.h"
#include "visioncontroller.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

namespace {
constexpr int kThumb = 56;

// As wide as its thumbnails where the window has the room (a QScrollArea stops at 36 lines of
// text), narrower where it does not; as tall as a thumbnail and the scroll bar below it, which
// shows only when they do not fit (its room is kept, so that nothing moves when it shows).
class ThumbnailArea : public QScrollArea
{
public:
    explicit ThumbnailArea(QWidget *parent) : QScrollArea(parent)
    {
        setFocusPolicy(Qt::NoFocus); // a click on a thumbnail leaves the keyboard in the message box
    }
    QSize sizeHint() const override { return widget() ? QSize(widget()->sizeHint().width(), tall()) : QScrollArea::sizeHint(); }
    QSize minimumSizeHint() const override { return {0, tall()}; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        // A thumbnail shown or removed: the hints above change with it.
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }
    // There is nothing to scroll up and down: the wheel scrolls sideways. A turn that is mostly
    // up and down goes without its sideways part (a touchpad's swipe has some), which the scroll
    // bar would take for a sideways turn it ignores.
    void wheelEvent(QWheelEvent *event) override
    {
        const QPoint angle = event->angleDelta();
        if (qAbs(angle.y()) <= qAbs(angle.x())) {
            QCoreApplication::sendEvent(horizontalScrollBar(), event);
            return;
        }
        QWheelEvent upDown(event->position(), event->globalPosition(), QPoint(0, event->pixelDelta().y()),
                           QPoint(0, angle.y()), event->buttons(), event->modifiers(), event->phase(),
                           event->inverted(), event->source());
        QCoreApplication::sendEvent(horizontalScrollBar(), &upDown);
        event->setAccepted(upDown.isAccepted());
    }

private:
    int tall() const
    {
        return (widget() ? widget()->sizeHint().height() : 0) + horizontalScrollBar()->sizeHint().height();
    }
};

QByteArray pngOf(const QImage &image)
{
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return png;
}
} // namespace

// Pool thread: the checks (engine: the whole decode, as the projector will do it) and Qt's
// decode for the thumbnail and the size, once.
AttachmentStrip::Prepared AttachmentStrip::prepare(shoehorn::Result<ChatImage> read)
{
    Prepared p;
    if (!read) {
        p.error = ErrorText::message(read.error());
        return p;
    }
    p.image = *read;
    QImage decoded;
    decoded.loadFromData(p.image.data);
    p.size = decoded.size();
    p.thumbnail = fittedImage(decoded, QSize(kThumb, kThumb));
    return p;
}

AttachmentStrip::AttachmentStrip(VisionController *vision, QWidget *parent) : QWidget(parent), m_vision(vision)
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *row = new QHBoxLayout;
    // The thumbnails scroll sideways: in a plain row each one made the window's minimum width
    // about 90 px larger (ten of them 1728 px), and a window at its minimum grew with every paste.
    m_thumbsArea = new ThumbnailArea(this);
    m_thumbsArea->setObjectName(QStringLiteral("attachmentThumbs"));
    m_thumbsArea->setFrameShape(QFrame::NoFrame);
    m_thumbsArea->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_thumbsArea->setWidgetResizable(true);
    m_thumbsArea->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_thumbsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    auto *thumbs = new QWidget(m_thumbsArea);
    m_thumbs = new QHBoxLayout(thumbs);
    m_thumbs->setContentsMargins(0, 0, 0, 0);
    m_thumbsArea->setWidget(thumbs);
    m_thumbsArea->hide();
    m_attach = new QToolButton(this);
    m_attach->setObjectName(QStringLiteral("attachImageButton"));
    m_attach->setToolButtonStyle(Qt::ToolButtonTextOnly);
    row->addWidget(m_thumbsArea);
    row->addWidget(m_attach, 0, Qt::AlignTop); // level with the thumbnails' top
    row->addStretch(1);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("attachmentNote"));
    m_note->setWordWrap(true);
    m_note->hide();
    outer->addLayout(row);
    outer->addWidget(m_note);
    m_choose = [](QWidget *p, std::function<void(const QStringList &)> done) {
        AsyncDialogs::openFiles(p, tr("Attach Images"), tr("Images (*.png *.jpg *.jpeg *.bmp *.gif);;All files (*)"),
                                std::move(done));
    };
    connect(m_attach, &QToolButton::clicked, this, [this] {
        m_choose(this, [this](const QStringList &paths) { addFiles(paths); });
    });
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
    m_thumbnails.clear();
    m_sizes.clear();
    m_errors.clear();
    m_reading = 0;
    ++m_generation;
    rebuild();
}

void AttachmentStrip::readOffThread(std::function<QList<Prepared>()> read)
{
    m_errors.clear();
    ++m_reading; // counted at once: a send meanwhile waits for it
    QtConcurrent::run(workPool(), std::move(read)).then(this, [this, generation = m_generation](const QList<Prepared> &ready) {
        if (generation == m_generation)
            addPrepared(ready);
    });
    updateNote();
}

void AttachmentStrip::addFiles(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    readOffThread([paths] {
        QList<Prepared> out;
        for (const QString &p : paths)
            out << prepare(VisionController::imageFromFile(p));
        return out;
    });
}

AttachmentStrip::Prepared AttachmentStrip::prepareBytes(const QByteArray &bytes, const QString &what)
{
    auto image = VisionController::imageFromBytes(bytes);
    if (!VisionController::isChatImageFormat(bytes)) {
        // Another format (TIFF, WebP, XPM, PNM): its pixels as PNG, where Qt reads it. A damaged
        // PNG, JPEG, GIF or BMP keeps the projector's own words.
        if (const QImage pixels = QImage::fromData(bytes); !pixels.isNull())
            image = VisionController::imageFromBytes(pngOf(pixels));
    }
    Prepared p = prepare(image);
    if (!p.error.isEmpty())
        p.error = what + QStringLiteral(": ") + p.error;
    return p;
}

void AttachmentStrip::addImageBytes(const QByteArray &bytes, const QString &what)
{
    readOffThread([bytes, what] { return QList<Prepared>{prepareBytes(bytes, what)}; });
}

void AttachmentStrip::addPicture(const QImage &image, const QString &what)
{
    readOffThread([image, what] { return QList<Prepared>{prepareBytes(pngOf(image), what)}; });
}

void AttachmentStrip::addPrepared(const QList<Prepared> &ready)
{
    --m_reading;
    for (const Prepared &p : ready) {
        if (!p.error.isEmpty()) {
            m_errors << p.error;
            continue;
        }
        m_images.append(p.image);
        m_thumbnails.append(p.thumbnail);
        m_sizes.append(p.size);
    }
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
        thumb->setIcon(QIcon(QPixmap::fromImage(m_thumbnails.value(i))));
        thumb->setIconSize({kThumb, kThumb});
        thumb->setToolTip(tr("%1 × %2 pixels, %3 KiB. Click to view.")
                              .arg(m_sizes.value(i).width())
                              .arg(m_sizes.value(i).height())
                              .arg((img.data.size() + 1023) / 1024));
        connect(thumb, &QToolButton::clicked, this, [this, img] { emit viewRequested(img); });
        auto *remove = new QToolButton(box);
        remove->setObjectName(QStringLiteral("removeAttachment"));
        remove->setText(QStringLiteral("×"));
        remove->setToolTip(tr("Remove this image"));
        remove->setAutoRaise(true);
        connect(remove, &QToolButton::clicked, this, [this, i] {
            m_images.removeAt(i);
            m_thumbnails.removeAt(i);
            m_sizes.removeAt(i);
            m_errors.clear();
            rebuild();
        });
        l->addWidget(thumb);
        l->addWidget(remove, 0, Qt::AlignTop);
        m_thumbs->addWidget(box, 0, Qt::AlignTop); // the scroll bar's room stays below them
    }
    m_thumbs->addStretch(1);
    m_thumbsArea->setVisible(!m_images.isEmpty());
    updateNote();
    emit imagesChanged();
}

QString AttachmentStrip::problem() const
{
    QStringList lines = m_errors;
    if (m_reading > 0)
        lines << tr("Reading the image…");
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
