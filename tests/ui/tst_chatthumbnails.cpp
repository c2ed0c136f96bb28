// A chat's thumbnails: a tile at once, the picture made small on the work pool, one decode per
// picture whichever names wait for it, the made thumbnail reused, and nothing shown for a name
// that left the document or bytes that are not a picture.
#include "chatthumbnails.h"

#include <QBuffer>
#include <QSignalSpy>
#include <QTextDocument>
#include <QUrl>
#include <QtTest>

namespace {

QByteArray png(const QSize &size, const QColor &colour)
{
    QImage img(size, QImage::Format_RGB32);
    img.fill(colour);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    img.save(&buffer, "PNG");
    return bytes;
}

QImage resource(QTextDocument &doc, const QString &name)
{
    return doc.resource(QTextDocument::ImageResource, QUrl(name)).value<QImage>();
}

const QColor kTile(200, 200, 200);

} // namespace

class TestChatThumbnails : public QObject
{
    Q_OBJECT
private slots:
    void tileThenThumbnail();
    void oneDecodePerPicture();
    void madeThumbnailIsReused();
    void nothingToShow_data();
    void nothingToShow();
};

void TestChatThumbnails::tileThenThumbnail()
{
    QTextDocument doc;
    ChatThumbnails thumbs(&doc, [](const QString &) { return true; });
    QSignalSpy shown(&thumbs, &ChatThumbnails::shown);
    thumbs.show("shoehorn-image://1/0", png({400, 200}, Qt::red), {120, 60}, kTile);
    const QImage tile = resource(doc, "shoehorn-image://1/0");
    QCOMPARE(tile.size(), QSize(120, 60));
    QCOMPARE(tile.pixelColor(10, 10), kTile);
    QTRY_COMPARE(shown.count(), 1);
    QCOMPARE(shown.first().first().toString(), QString("shoehorn-image://1/0"));
    const QImage thumb = resource(doc, "shoehorn-image://1/0");
    QCOMPARE(thumb.size(), QSize(120, 60));
    QCOMPARE(thumb.pixelColor(10, 10), QColor(Qt::red));
}

// Two messages show the same picture (one buffer), and a row is laid out again while it is
// decoded: each name is shown once.
void TestChatThumbnails::oneDecodePerPicture()
{
    QTextDocument doc;
    ChatThumbnails thumbs(&doc, [](const QString &) { return true; });
    QSignalSpy shown(&thumbs, &ChatThumbnails::shown);
    const QByteArray picture = png({300, 300}, Qt::blue);
    thumbs.show("shoehorn-image://1/0", picture, {120, 120}, kTile);
    thumbs.show("shoehorn-image://2/0", picture, {120, 120}, kTile);
    thumbs.show("shoehorn-image://1/0", picture, {120, 120}, kTile);
    QTRY_COMPARE(shown.count(), 2);
    QTest::qWait(50);
    QCOMPARE(shown.count(), 2);
    QCOMPARE(shown.at(0).first().toString(), QString("shoehorn-image://1/0"));
    QCOMPARE(shown.at(1).first().toString(), QString("shoehorn-image://2/0"));
    QCOMPARE(resource(doc, "shoehorn-image://2/0").pixelColor(5, 5), QColor(Qt::blue));
}

// A rebuild (new names for the same bytes) finds the thumbnail made: no tile, no decode.
void TestChatThumbnails::madeThumbnailIsReused()
{
    QTextDocument doc;
    ChatThumbnails thumbs(&doc, [](const QString &) { return true; });
    QSignalSpy shown(&thumbs, &ChatThumbnails::shown);
    const QByteArray picture = png({60, 40}, Qt::green);
    thumbs.show("shoehorn-image://1/0", picture, {60, 40}, kTile);
    QTRY_COMPARE(shown.count(), 1);
    thumbs.forgetNames();
    thumbs.show("shoehorn-image://7/0", picture, {60, 40}, kTile);
    QCOMPARE(resource(doc, "shoehorn-image://7/0").pixelColor(5, 5), QColor(Qt::green));
    QTest::qWait(50);
    QCOMPARE(shown.count(), 1);
}

void TestChatThumbnails::nothingToShow_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("stillShown");
    QTest::addRow("bytes still being read") << QByteArray() << true;
    QTest::addRow("not a picture") << QByteArray("GIF89a but not really") << true;
    QTest::addRow("its message was deleted") << png({50, 50}, Qt::red) << false;
}

// The tile stays and nothing is announced.
void TestChatThumbnails::nothingToShow()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, stillShown);
    QTextDocument doc;
    ChatThumbnails thumbs(&doc, [stillShown](const QString &) { return stillShown; });
    QSignalSpy shown(&thumbs, &ChatThumbnails::shown);
    thumbs.show("shoehorn-image://3/1", bytes, {50, 50}, kTile);
    // Something to wait for: a picture of its own decoded after the one above.
    ChatThumbnails later(&doc, [](const QString &) { return true; });
    QSignalSpy laterShown(&later, &ChatThumbnails::shown);
    later.show("shoehorn-image://9/0", png({20, 20}, Qt::black), {20, 20}, kTile);
    QTRY_COMPARE(laterShown.count(), 1);
    QTest::qWait(50);
    QCOMPARE(shown.count(), 0);
    QCOMPARE(resource(doc, "shoehorn-image://3/1").pixelColor(5, 5), kTile);
}

QTEST_MAIN(TestChatThumbnails)
#include "tst_chatthumbnails.moc"
