#pragma once

#include <QHash>
#include <QImage>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <functional>

class QTextDocument;

// The thumbnails of the pictures in a chat's document. Decoding and shrinking a picture run on
// the work pool (a 4000x3000 photo takes a few hundred ms); until then its resource is a plain
// tile. One decode per picture, whichever rows show it; made thumbnails are kept by picture, so
// a rebuild (a restyle, an edit) finds them made.
class ChatThumbnails : public QObject
{
    Q_OBJECT
public:
    // `stillShown(name)`: whether a resource name is still in the document when its decode ends
    // (its message may have been deleted meanwhile).
    ChatThumbnails(QTextDocument *document, std::function<bool(const QString &name)> stillShown,
                   QObject *parent = nullptr);

    // Gives the document's resource `name` the picture's thumbnail at `size`: the one made
    // already, or a tile of `tile`'s colour and a decode. Empty bytes (not read from the
    // history yet) get the tile only: the row is written again when they come.
    void show(const QString &name, const QByteArray &data, const QSize &size, const QColor &tile);
    // The rows are written again with new names: decodes go on, and are kept.
    void forgetNames() { m_waiting.clear(); }

signals:
    void shown(const QString &name); // a thumbnail replaced its tile

private:
    void decoded(const QString &picture, const QImage &thumb);

    QTextDocument *m_document;
    std::function<bool(const QString &)> m_stillShown;
    QHash<QString, QImage> m_made;          // by picture (pictureKey)
    QSet<QString> m_decoding;               // pictures being made small on the pool
    QHash<QString, QStringList> m_waiting;  // picture: the resource names waiting for it
};
