#pragma once

#include <QBuffer>
#include <QImage>
#include <QImageReader>
#include <QSize>

// `full` made smaller to fit `box`, keeping its shape; never larger: a small picture stays as it is.
inline QSize fitWithin(const QSize &full, const QSize &box)
{
    return full.width() > box.width() || full.height() > box.height() ? full.scaled(box, Qt::KeepAspectRatio) : full;
}

// A picture made smaller to fit `box`, in full colour. QImage::scaled keeps a 1-bit image 1-bit
// and drops its palette: a one-colour PNG (ImageMagick writes xc:skyblue that way) showed as
// black and white noise.
inline QImage fittedImage(const QImage &image, const QSize &box)
{
    const QImage colour = image.depth() < 32 ? image.convertToFormat(QImage::Format_ARGB32_Premultiplied) : image;
    return colour.scaled(box, Qt::KeepAspectRatio, Qt::SmoothTransformation);
}

// A picture's bytes read and made to fit `box` (never made larger). Slow for a photo: for a pool
// thread. A JPEG larger than the box is decoded at a reduced scale (libjpeg's), not in full.
inline QImage decodedToFit(QByteArray data, const QSize &box)
{
    QBuffer buffer(&data);
    QImageReader reader(&buffer);
    const QSize full = reader.size();
    if (reader.format() == "jpeg" && full.isValid() && fitWithin(full, box) != full)
        reader.setScaledSize(fitWithin(full, box));
    const QImage img = reader.read();
    if (img.isNull() || (img.width() <= box.width() && img.height() <= box.height()))
        return img;
    return fittedImage(img, box);
}
