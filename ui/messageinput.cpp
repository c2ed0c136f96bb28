#include "messageinput.h"

#include <algorithm>

#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QKeyEvent>
#include <QMimeData>
#include <QUrl>

namespace {
bool looksLikeImageFile(const QString &path)
{
    static const QStringList kSuffixes{QStringLiteral("png"), QStringLiteral("jpg"), QStringLiteral("jpeg"),
                                       QStringLiteral("bmp"), QStringLiteral("gif"), QStringLiteral("webp"),
                                       QStringLiteral("tif"), QStringLiteral("tiff"), QStringLiteral("heic")};
    return kSuffixes.contains(QFileInfo(path).suffix().toLower());
}

QStringList imageFiles(const QMimeData *m)
{
    QStringList out;
    if (m && m->hasUrls())
        for (const QUrl &u : m->urls())
            if (u.isLocalFile() && looksLikeImageFile(u.toLocalFile()))
                out << u.toLocalFile();
    return out;
}

// The clipboard's encoded picture to take: PNG, else the formats the projector reads as they are,
// else another one Qt reads (made PNG off the GUI thread).
QString encodedImage(const QMimeData *m)
{
    for (const char *mime : {"image/png", "image/jpeg", "image/gif", "image/bmp"})
        if (m->hasFormat(QLatin1String(mime)))
            return QLatin1String(mime);
    const QStringList formats = m->formats();
    const QList<QByteArray> readable = QImageReader::supportedMimeTypes();
    const auto other = std::find_if(formats.cbegin(), formats.cend(),
                                    [&readable](const QString &f) { return readable.contains(f.toLatin1()); });
    return other == formats.cend() ? QString() : *other;
}
} // namespace

MessageInput::MessageInput(QWidget *parent) : QPlainTextEdit(parent)
{
    setTabChangesFocus(true);
    setPlaceholderText(tr("Type a message. Enter sends, Shift+Enter adds a line."));
}

QSize MessageInput::sizeHint() const
{
    const int lines = 3;
    return {QPlainTextEdit::sizeHint().width(), fontMetrics().lineSpacing() * lines + 16};
}

void MessageInput::keyPressEvent(QKeyEvent *event)
{
    const bool enter = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    if (enter && !(event->modifiers() & Qt::ShiftModifier)) {
        emit submitted();
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

bool MessageInput::canInsertFromMimeData(const QMimeData *source) const
{
    return source->hasImage() || !imageFiles(source).isEmpty() || QPlainTextEdit::canInsertFromMimeData(source);
}

void MessageInput::insertFromMimeData(const QMimeData *source)
{
    if (const QStringList files = imageFiles(source); !files.isEmpty()) {
        emit imageFilesDropped(files);
        return;
    }
    if (source->hasImage()) {
        // A picture from the clipboard (a screenshot): the bytes the other program offers, PNG
        // first, checked (and made PNG where the projector cannot read them) off the GUI thread.
        // imageData() would decode them here: 203 ms for a 4000x3000 JPEG.
        if (const QString mime = encodedImage(source); !mime.isEmpty())
            emit imagePasted(source->data(mime));
        else // only pixels (copied in this process): the strip makes them PNG off the GUI thread
            emit picturePasted(qvariant_cast<QImage>(source->imageData()));
        return;
    }
    QPlainTextEdit::insertFromMimeData(source);
}
