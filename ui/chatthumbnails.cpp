#include "chatthumbnails.h"

#include "imagefit.h"
#include "workpool.h"

#include <QFutureWatcher>
#include <QTextDocument>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

namespace {
// Which picture: its bytes' address, size and first 4 KiB. The chat model shares one buffer per
// picture across rebuilds, so those find its thumbnail made; a chat opened again from the
// history reads new buffers and decodes it again.
QString pictureKey(const QByteArray &data)
{
    return QStringLiteral("%1:%2:%3")
        .arg(quintptr(data.constData()))
        .arg(data.size())
        .arg(qHashBits(data.constData(), size_t(std::min<qsizetype>(data.size(), 4096))));
}
constexpr int kKept = 256; // about 15 MiB of 120-pixel pictures
} // namespace

ChatThumbnails::ChatThumbnails(QTextDocument *document, std::function<bool(const QString &)> stillShown,
                               QObject *parent)
    : QObject(parent), m_document(document), m_stillShown(std::move(stillShown))
{
}

void ChatThumbnails::show(const QString &name, const QByteArray &data, const QSize &size, const QColor &tile)
{
    const QString picture = pictureKey(data);
    if (const auto made = m_made.constFind(picture); made != m_made.cend()) {
        m_document->addResource(QTextDocument::ImageResource, QUrl(name), *made);
        return;
    }
    QImage plain(size, QImage::Format_ARGB32_Premultiplied);
    plain.fill(tile);
    m_document->addResource(QTextDocument::ImageResource, QUrl(name), plain);
    if (data.isEmpty())
        return;
    QStringList &waiting = m_waiting[picture];
    if (!waiting.contains(name)) // a row laid out again during the decode asks twice
        waiting.append(name);
    if (m_decoding.contains(picture))
        return;
    m_decoding.insert(picture);
    // The watcher goes with the view: a picture decoded after it went finds nothing to show.
    auto *decoding = new QFutureWatcher<QImage>(this);
    connect(decoding, &QFutureWatcher<QImage>::finished, this, [this, decoding, picture] {
        decoding->deleteLater();
        decoded(picture, decoding->result());
    });
    decoding->setFuture(QtConcurrent::run(workPool(), [data, size] { return decodedToFit(data, size); }));
}

void ChatThumbnails::decoded(const QString &picture, const QImage &thumb)
{
    m_decoding.remove(picture);
    const QStringList names = m_waiting.take(picture);
    if (thumb.isNull())
        return; // the tiles stay: the viewer says why the picture cannot be read
    if (m_made.size() >= kKept)
        m_made.clear();
    m_made.insert(picture, thumb);
    for (const QString &n : names) {
        if (!m_stillShown(n))
            continue;
        m_document->addResource(QTextDocument::ImageResource, QUrl(n), thumb);
        emit shown(n);
    }
}
