#include "messageinput.h"

#include <QFileInfo>
#include <QImage>
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
        // A picture from the clipboard (a screenshot): sent as PNG, its pixels as they are. The
        // clipboard's own PNG is taken as it is; another format goes on as pixels, which the
        // attachment strip makes PNG off the GUI thread (a screen-sized encode takes tens of ms).
        if (source->hasFormat(QStringLiteral("image/png")))
            emit imagePasted(source->data(QStringLiteral("image/png")));
        else
            emit picturePasted(qvariant_cast<QImage>(source->imageData()));
        return;
    }
    QPlainTextEdit::insertFromMimeData(source);
}
