#include "imageviewer.h"

#include "imagefit.h"

#include <QDialogButtonBox>
#include <QImage>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QVBoxLayout>

ImageViewer::ImageViewer(const ChatImage &image, QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("imageViewer"));
    QImage img;
    img.loadFromData(image.data);
    setWindowTitle(tr("Image, %1 × %2 pixels").arg(img.width()).arg(img.height()));
    const QSize room = (screen() ? screen()->availableGeometry().size() : QSize(1280, 800)) * 0.8;
    if (img.width() > room.width() || img.height() > room.height())
        img = fittedImage(img, room);
    auto *label = new QLabel(this);
    label->setPixmap(QPixmap::fromImage(img));
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(label);
    scroll->setAlignment(Qt::AlignCenter);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    resize(img.size().boundedTo(room) + QSize(40, 80));
}
