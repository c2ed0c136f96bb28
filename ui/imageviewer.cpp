#include "imageviewer.h"

#include "imagefit.h"
#include "workpool.h"

#include <QBuffer>
#include <QDialogButtonBox>
#include <QFutureWatcher>
#include <QImage>
#include <QImageReader>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

ImageViewer::ImageViewer(const ChatImage &image, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("imageViewer"));
    // The size from the picture's header; the decode (hundreds of ms for a photo) runs on the
    // pool and the picture shows when it is ready.
    QByteArray data = image.data;
    QBuffer buffer(&data);
    const QSize full = QImageReader(&buffer).size();
    setWindowTitle(tr("Image, %1 × %2 pixels").arg(full.width()).arg(full.height()));
    const QSize room = (screen() ? screen()->availableGeometry().size() : QSize(1280, 800)) * 0.8;
    const QSize shown = full.isValid() ? fitWithin(full, room) : QSize(320, 240);
    auto *label = new QLabel(tr("Opening the picture…"), this);
    label->setObjectName(QStringLiteral("imageViewerPicture"));
    label->setAlignment(Qt::AlignCenter);
    label->setMinimumSize(shown);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(label);
    scroll->setAlignment(Qt::AlignCenter);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    resize(shown.boundedTo(room) + QSize(40, 80));
    // The watcher goes with the dialog: a picture decoded after it closed finds nothing to show.
    auto *decoding = new QFutureWatcher<QImage>(this);
    connect(decoding, &QFutureWatcher<QImage>::finished, this, [this, label, decoding] {
        const QImage img = decoding->result();
        if (img.isNull()) {
            label->setText(tr("This picture cannot be read."));
        } else {
            label->setPixmap(QPixmap::fromImage(img));
            label->resize(img.size());
        }
        emit pictureShown();
    });
    decoding->setFuture(QtConcurrent::run(workPool(), [data, room] { return decodedToFit(data, room); }));
}
