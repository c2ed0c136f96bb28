#pragma once

#include <QImage>
#include <QSize>

// A picture made smaller to fit `box`, in full colour. QImage::scaled keeps a 1-bit image 1-bit
// and drops its palette: a one-colour PNG (ImageMagick writes xc:skyblue that way) showed as
// black and white noise.
inline QImage fittedImage(const QImage &image, const QSize &box)
{
    const QImage colour = image.depth() < 32 ? image.convertToFormat(QImage::Format_ARGB32_Premultiplied) : image;
    return colour.scaled(box, Qt::KeepAspectRatio, Qt::SmoothTransformation);
}
