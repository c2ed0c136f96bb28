// Images in the real window, on the tiny vision pair: attach by the button, by dropping files
// on the message box and by pasting; thumbnails that can be removed and opened; a bad file or
// a model that cannot see said in words, with nothing typed lost; the sent message shows its
// pictures, and Model > Vision Projector switches the projector without a reload.
#include "appsettings.h"
#include "../app/startfresh.h"
#include "appcore.h"
#include "../app/smallchat.h"
#include "attachmentstrip.h"
#include "chatcontroller.h"
#include "loadedmodel.h"
#include "chatmodel.h"
#include "chatstore.h"
#include "chatview.h"
#include "mainwindow.h"
#include "messageinput.h"
#include "modelsettings.h"
#include "stallprobe.h"
#include "testfixtures.h"
#include "visioncontroller.h"
#include "visionmenu.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileInfo>
#include <QDialog>
#include <QGuiApplication>
#include <QImage>
#include <QLabel>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QUrl>
#include <QWheelEvent>
#include "imagefit.h"

#include <QBuffer>
#include <QtTest>

class TestAttachments : public QObject
{
    Q_OBJECT
private:
    struct Window {
        AppCore controllerApp;
        ChatController &controller = *controllerApp.chat();
        LoadedModel &lm = *controllerApp.model();
        std::unique_ptr<MainWindow> window;
    };
    [[nodiscard]] static bool open(Window &w, const QString &model, bool wantVision)
    {
        [&] {
            configureSmallChat(w.lm, 8, 0);
            w.window = std::make_unique<MainWindow>(w.controllerApp.windowParts());
            w.window->setErrorPresenter([](const QString &, const QString &) {});
            w.window->setInfoPresenter([](const QString &, const QString &) {});
            w.window->show();
            QVERIFY(QTest::qWaitForWindowExposed(w.window.get()));
            QSignalSpy loaded(&w.lm, &LoadedModel::modelLoaded);
            w.window->openModel(model);
            QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 20000);
            if (wantVision)
                QTRY_VERIFY2_WITH_TIMEOUT(w.controllerApp.vision()->canSeeImages(), qPrintable(w.controllerApp.vision()->vision().path + " " + QString::fromStdString(w.controllerApp.vision()->vision().error.detail)), 20000);
        }();
        return !QTest::currentTestFailed();
    }
    QString writeFile(const QString &name, const QByteArray &bytes)
    {
        QFile f(m_dir.filePath(name));
        if (f.open(QIODevice::WriteOnly))
            f.write(bytes);
        return f.fileName();
    }
    static QLabel *note(Window &w) { return w.window->findChild<QLabel *>(QStringLiteral("attachmentNote")); }
    // A 4000x3000 JPEG photo (a few hundred ms to decode), made once.
    static QString photoFile()
    {
        const QString path = TestFixtures::instance().dir() + "/photo-4000x3000.jpg";
        if (QFileInfo::exists(path))
            return path;
        QImage photo(4000, 3000, QImage::Format_RGB32);
        for (int y = 0; y < photo.height(); ++y) {
            auto *line = reinterpret_cast<QRgb *>(photo.scanLine(y));
            for (int x = 0; x < photo.width(); ++x)
                line[x] = qRgb((x * 7 + y) & 255, (x ^ y) & 255, (x * y) & 255);
        }
        return photo.save(path, "JPG", 90) ? path : QString();
    }
    // The chat shows a picture's thumbnail, not the plain tile it starts as.
    static bool showsThumbnail(ChatView *chat)
    {
        for (QTextBlock b = chat->document()->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it)
                if (it.fragment().charFormat().isImageFormat()) {
                    const QString n = it.fragment().charFormat().toImageFormat().name();
                    const QImage img = chat->document()->resource(QTextDocument::ImageResource, QUrl(n)).value<QImage>();
                    return img.size() == QSize(120, 90) &&
                           img.pixel(60, 45) != chat->palette().color(QPalette::Midlight).rgb();
                }
        return false;
    }
    // The format of the picture called `name` in `doc`.
    static QTextImageFormat imageFormat(QTextDocument *doc, const QString &name)
    {
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it)
                if (it.fragment().charFormat().isImageFormat() &&
                    it.fragment().charFormat().toImageFormat().name() == name)
                    return it.fragment().charFormat().toImageFormat();
        return {};
    }
    QTemporaryDir m_dir;

private slots:
    void init() { startFresh(); }
    void attachDropPasteAndSend();
    void badFilesAndNoProjectorLoseNothing();
    void visionMenuSwitchesWithoutReload();
    void visionMenuNamesProjectorsForAnotherModel();
    void largeImageDoesNotStallTheWindow();
    void sentPhotoDoesNotStallTheWindow();
    void pastedJpegIsDecodedOffTheGuiThread();
    void oneBitPictureKeepsItsColour();
    void manyPicturesKeepTheWindowsWidth();
};

void TestAttachments::attachDropPasteAndSend()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    AttachmentStrip *strip = w.window->attachments();
    MessageInput *input = w.window->messageInput();
    QSignalSpy changed(strip, &AttachmentStrip::imagesChanged);
    // The button (its file dialog is the seam).
    const QString a = writeFile("a.bmp", TestFixtures::bmpImage(64, 48, 1));
    strip->setFileChooser([a](QWidget *, std::function<void(const QStringList &)> done) { done({a}); });
    strip->attachButton()->click();
    QTRY_COMPARE(strip->images().size(), 1); // read on a pool thread
    // Files dropped on the message box: images, not their paths as text.
    const QString b = writeFile("b.bmp", TestFixtures::bmpImage(32, 32, 2));
    QMimeData drop;
    drop.setUrls({QUrl::fromLocalFile(b)});
    {
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &drop, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(input->viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent dropped(QPointF(10, 10), Qt::CopyAction, &drop, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(input->viewport(), &dropped);
    }
    QTRY_COMPARE(strip->images().size(), 2);
    QVERIFY(input->toPlainText().isEmpty());
    // A pasted picture (a screenshot in the clipboard) becomes a PNG attachment.
    QImage shot(40, 30, QImage::Format_RGB32);
    shot.fill(Qt::darkCyan);
    QGuiApplication::clipboard()->setImage(shot);
    input->setFocus();
    QTest::keySequence(input, QKeySequence::Paste);
    QTRY_COMPARE(strip->images().size(), 3);
    QCOMPARE(strip->images().at(2).mime, QString("image/png"));
    QVERIFY(note(w)->isHidden());
    // Remove the second one.
    const auto removes = strip->findChildren<QToolButton *>(QStringLiteral("removeAttachment"));
    QCOMPARE(removes.size(), 3);
    removes.at(1)->click();
    QCOMPARE(strip->images().size(), 2);
    QVERIFY(changed.count() >= 4);
    // A thumbnail opens the image.
    QSignalSpy view(strip, &AttachmentStrip::viewRequested);
    strip->findChildren<QToolButton *>(QStringLiteral("attachmentThumb")).at(0)->click();
    QCOMPARE(view.count(), 1);
    QTRY_VERIFY(w.window->findChild<QDialog *>(QStringLiteral("imageViewer")));
    // The picture, decoded off the GUI thread, replaces "Opening the picture…": a.bmp, 64 x 48.
    QLabel *picture = w.window->findChild<QDialog *>(QStringLiteral("imageViewer"))
                          ->findChild<QLabel *>(QStringLiteral("imageViewerPicture"));
    QTRY_VERIFY(!picture->pixmap().isNull());
    QCOMPARE(picture->pixmap().size(), QSize(64, 48));
    QCOMPARE(w.window->findChild<QDialog *>(QStringLiteral("imageViewer"))->windowTitle(), QString("Image, 64 × 48 pixels"));
    w.window->findChild<QDialog *>(QStringLiteral("imageViewer"))->close();

    // Send: the question carries both images; the box and the strip empty.
    QSignalSpy finished(&w.controller, &ChatController::answerFinished);
    QTest::keyClicks(input, QStringLiteral("What are these?"));
    QTest::keyClick(input, Qt::Key_Return);
    QVERIFY(finished.wait(30000));
    QVERIFY(strip->images().isEmpty());
    QVERIFY(input->toPlainText().isEmpty());
    const auto &question = w.controller.chatModel()->message(0);
    QCOMPARE(question.images.size(), 2);
    QCOMPARE(question.content, QString("What are these?"));
    // The message shows them as thumbnails that link to the full image.
    ChatView *chat = w.window->findChild<ChatView *>();
    QVERIFY(chat);
    const auto link = QRegularExpression(QStringLiteral("href=\"image:(\\d+):1\"")).match(chat->toHtml());
    QVERIFY2(link.hasMatch(), qPrintable(chat->toHtml().left(2000)));
    const QString key = link.captured(1);
    const QVariant thumb =
        chat->document()->resource(QTextDocument::ImageResource, QUrl("shoehorn-image://" + key + "/1"));
    QVERIFY(!thumb.isNull());
    QCOMPARE(thumb.value<QImage>().size(), QSize(40, 30)); // the pasted one, smaller than a thumbnail: as it is
    QSignalSpy full(chat, &ChatView::imageRequested);
    chat->activate("image:" + key + ":1");
    QCOMPARE(full.count(), 1);
    QVERIFY(full.at(0).at(0).value<ChatImage>() == question.images.at(1));
}

void TestAttachments::badFilesAndNoProjectorLoseNothing()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyApi(), false));
    AttachmentStrip *strip = w.window->attachments();
    MessageInput *input = w.window->messageInput();
    QTest::keyClicks(input, QStringLiteral("my long question"));
    // Not an image, and one too large: said, nothing added, the text stays.
    const QString notes = writeFile("notes.png", "these are notes");
    const QString webp = writeFile("photo.webp", QByteArray("RIFF\x10\0\0\0WEBPVP8 ", 16));
    strip->addFiles({notes, webp});
    QTRY_VERIFY(!strip->isReading());
    QVERIFY(strip->images().isEmpty());
    QVERIFY(note(w)->isVisible());
    QVERIFY2(note(w)->text().contains("notes.png") && note(w)->text().contains("WebP"), qPrintable(note(w)->text()));
    QCOMPARE(input->toPlainText(), QString("my long question"));
    // A good image on a model without a projector: said when attached, and Send keeps everything.
    strip->addFiles({writeFile("ok.bmp", TestFixtures::bmpImage(16, 16))});
    QTRY_COMPARE(strip->images().size(), 1);
    QVERIFY2(note(w)->text().contains("cannot see images"), qPrintable(note(w)->text()));
    w.window->findChild<QPushButton *>(QStringLiteral("sendButton"))->click();
    QTest::qWait(100);
    QCOMPARE(w.controller.chatModel()->rowCount(), 0);
    QCOMPARE(input->toPlainText(), QString("my long question"));
    QCOMPARE(strip->images().size(), 1);
    // Taking the image away lets the text go.
    strip->findChild<QToolButton *>(QStringLiteral("removeAttachment"))->click();
    QSignalSpy finished(&w.controller, &ChatController::answerFinished);
    w.window->findChild<QPushButton *>(QStringLiteral("sendButton"))->click();
    QVERIFY(finished.wait(30000));
    QCOMPARE(w.controller.chatModel()->message(0).content, QString("my long question"));
}

void TestAttachments::visionMenuSwitchesWithoutReload()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    VisionMenu *menu = w.window->findChild<VisionMenu *>(QStringLiteral("visionMenu"));
    QVERIFY(menu);
    menu->rebuild();
    QStringList texts;
    for (QAction *a : menu->actions())
        texts << a->text();
    QVERIFY2(texts.join('|').contains("Reads images with mmproj-tiny-vision-F16.gguf (F16)"), qPrintable(texts.join('|')));
    QSignalSpy loads(&w.lm, &LoadedModel::modelLoaded);
    QAction *f32 = nullptr, *none = nullptr;
    for (QAction *a : menu->actions()) {
        if (a->text().startsWith("mmproj-tiny-vision-F32.gguf"))
            f32 = a;
        if (a->text() == "None")
            none = a;
    }
    QVERIFY(f32 && none);
    f32->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(w.controllerApp.vision()->vision().precision, QString("F32"), 20000);
    none->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w.controllerApp.vision()->vision().path.isEmpty(), 20000);
    QCOMPARE(loads.count(), 0);
    QCOMPARE(w.lm.modelSettings().projector, ModelSettings::kNoProjector);
}

// A model beside projectors for another model: "Automatic" and the files say so ("none beside
// the model" above a greyed projector beside it read as a contradiction).
void TestAttachments::visionMenuNamesProjectorsForAnotherModel()
{
    QVERIFY(QDir(m_dir.path()).mkpath("beside"));
    const QString other = m_dir.filePath("beside/other-model.gguf");
    const QString projector = TestFixtures::instance().projector("F16");
    QVERIFY(QFile::exists(other) || QFile::copy(TestFixtures::instance().tinyApi(), other));
    QVERIFY(QFile::copy(projector, m_dir.filePath("beside/" + QFileInfo(projector).fileName())) ||
            QFile::exists(m_dir.filePath("beside/" + QFileInfo(projector).fileName())));
    Window w;
    QVERIFY(open(w, other, false));
    VisionMenu *menu = w.window->findChild<VisionMenu *>(QStringLiteral("visionMenu"));
    QTRY_VERIFY_WITH_TIMEOUT(w.controllerApp.vision()->facts(other, {}).has_value(), 20000);
    menu->rebuild();
    QStringList texts;
    for (QAction *a : menu->actions())
        texts << a->text();
    const QString all = texts.join('|');
    QVERIFY2(all.contains("Automatic: none of the projectors beside the model fits it"), qPrintable(all));
    QVERIFY2(all.contains("mmproj-tiny-vision-F16.gguf (F16): for another model"), qPrintable(all));
}

// A 4000x3000 photo takes a few hundred ms to decode: read, checked and made a thumbnail off the
// GUI thread, the window never stops for longer than a frame meanwhile (#31).
void TestAttachments::largeImageDoesNotStallTheWindow()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    AttachmentStrip *strip = w.window->attachments();
    const QString path = photoFile();
    QVERIFY(!path.isEmpty());
    // A real event loop throughout (QTest::qWait sleeps 10 ms between its rounds: the probe
    // would see its own sleeps); the attachment comes from the loop, as a click does.
    StallProbe probe;
    probe.start();
    QSignalSpy added(strip, &AttachmentStrip::imagesChanged);
    QTimer::singleShot(20, strip, [strip, path] { strip->addFiles({path}); });
    while (strip->images().isEmpty() && added.wait(20000)) {
    }
    StallProbe::spin(20);
    QVERIFY(probe.within("attaching a 4000x3000 JPEG"));
    QVERIFY(strip->findChild<QToolButton *>(QStringLiteral("attachmentThumb"))->toolTip().startsWith("4000 × 3000 pixels"));

    // In a message: the thumbnail is decoded and made small off the GUI thread too (ChatView), the
    // size and tooltip read from the header; the window never stops for a frame meanwhile.
    ChatModel messages;
    ChatView view;
    view.resize(600, 400);
    view.setChatModel(&messages);
    view.show();
    ChatModel::Message question = ChatModel::make(ChatModel::Author::User, QStringLiteral("What is this?"));
    question.images = strip->images();
    QSignalSpy shown(&view, &ChatView::thumbnailShown);
    probe.start();
    QTimer::singleShot(20, &messages, [&messages, question] { messages.appendMessage(question); });
    while (shown.isEmpty() && shown.wait(20000)) {
    }
    StallProbe::spin(20);
    QVERIFY(probe.within("a message shows it"));
    QCOMPARE(shown.count(), 1);
    const QString name = shown.at(0).at(0).toString();
    const QImage thumb = view.document()->resource(QTextDocument::ImageResource, QUrl(name)).value<QImage>();
    QCOMPARE(thumb.size(), QSize(120, 90));
    QVERIFY2(thumb.pixel(60, 45) != view.palette().color(QPalette::Midlight).rgb(), "still the plain tile");
    const QString tip = imageFormat(view.document(), name).toolTip();
    QVERIFY2(tip.contains("4000 × 3000 pixels"), qPrintable(tip)); // read from the header alone
}

// Sent, and the chat opened again: the window shows the thumbnail each time, and never stops
// for a frame meanwhile: the picture's bytes are written to and read from the chat history on
// the pool (ConversationRepository), and the history the model is given shares them.
void TestAttachments::sentPhotoDoesNotStallTheWindow()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    AttachmentStrip *strip = w.window->attachments();
    strip->addFiles({photoFile()});
    QTRY_COMPARE_WITH_TIMEOUT(strip->images().size(), 1, 20000);
    const QList<ChatImage> attached = strip->images();
    StallProbe probe;
    ChatView *chat = w.window->findChild<ChatView *>();
    MessageInput *input = w.window->messageInput();
    QSignalSpy inChat(chat, &ChatView::thumbnailShown);
    probe.start();
    QTimer::singleShot(20, input, [input] {
        QTest::keyClicks(input, QStringLiteral("What is this?"));
        QTest::keyClick(input, Qt::Key_Return);
    });
    QVERIFY(inChat.wait(20000));
    QVERIFY(StallProbe::waitFor([&w] { return w.controller.chatModel()->message(0).storeId != 0; })); // stored
    StallProbe::spin(20);
    QVERIFY(probe.within("sending it (stored in the history)"));
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller.answering(), 60000);
    const qint64 id = w.controller.currentConversation();
    QCOMPARE(w.controllerApp.history()->store()->messages(id).at(0).images, attached);
    w.controller.newChat();
    inChat.clear();
    probe.start();
    QTimer::singleShot(20, &w.controller, [&w, id] { QVERIFY(w.controller.openConversation(id)); });
    const auto thumbnailShown = [chat] { return showsThumbnail(chat); };
    QVERIFY(StallProbe::waitFor(thumbnailShown));
    QVERIFY(StallProbe::waitFor([&w] { return !w.controller.chatModel()->message(0).images.at(0).data.isEmpty(); }));
    StallProbe::spin(20);
    QVERIFY(probe.within("opening that chat again (read from the history)"));
    // Exported (7 MB of JSON: the photo in base64) and imported again: written, read and stored
    // on the pool (161 and 142 ms on the GUI thread when they were not).
    const QString exported = TestFixtures::instance().dir() + "/photo-chat.json";
    QStatusBar *status = w.window->statusBar();
    status->clearMessage();
    probe.start();
    QTimer::singleShot(20, w.window.get(), [&w, exported] { w.window->exportChatTo(exported); });
    QVERIFY(StallProbe::waitFor([status] { return status->currentMessage().startsWith("Chat exported to"); }));
    StallProbe::spin(20);
    QVERIFY(probe.within(QString::asprintf("exporting it (%lld bytes of JSON)", QFileInfo(exported).size())));
    QVERIFY(QFileInfo(exported).size() > 4 * 1024 * 1024);
    inChat.clear();
    probe.start();
    QTimer::singleShot(20, w.window.get(), [&w, exported] { w.window->importChatFile(exported); });
    QVERIFY(StallProbe::waitFor([&w, id] { return w.controller.currentConversation() != id; }));
    QVERIFY(StallProbe::waitFor([&w] { return !w.controller.chatModel()->message(0).images.at(0).data.isEmpty(); }));
    QVERIFY(StallProbe::waitFor(thumbnailShown));
    StallProbe::spin(20);
    QVERIFY(probe.within("importing it"));
    QCOMPARE(w.controller.chatModel()->message(0).images, attached);
}

// Another program's clipboard offering a photo as JPEG only (X11 asks that program for the
// bytes; Qt's imageData() then decodes them where it is called): the bytes are attached as they
// are and checked on the pool. Another format (XPM, PPM) is made PNG there.
void TestAttachments::pastedJpegIsDecodedOffTheGuiThread()
{
    // As Qt's X11 clipboard answers: the image/* formats offered, and a QImage decoded on demand.
    class OtherProgramsClipboard : public QMimeData
    {
    public:
        OtherProgramsClipboard(const QString &mime, const QByteArray &bytes) : m_mime(mime), m_bytes(bytes) {}
        QStringList formats() const override { return {m_mime, QStringLiteral("application/x-qt-image")}; }
        bool hasFormat(const QString &mime) const override { return formats().contains(mime); }

    protected:
        QVariant retrieveData(const QString &mime, QMetaType) const override
        {
            if (mime == QLatin1String("application/x-qt-image"))
                return QImage::fromData(m_bytes);
            return mime == m_mime ? QVariant(m_bytes) : QVariant();
        }

    private:
        QString m_mime;
        QByteArray m_bytes;
    };
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    AttachmentStrip *strip = w.window->attachments();
    MessageInput *input = w.window->messageInput();
    QFile photo(photoFile());
    QVERIFY(photo.open(QIODevice::ReadOnly));
    const QByteArray jpeg = photo.readAll();
    QGuiApplication::clipboard()->setMimeData(new OtherProgramsClipboard(QStringLiteral("image/jpeg"), jpeg));
    input->setFocus();
    StallProbe probe;
    probe.start();
    QTimer::singleShot(20, input, [input] { QTest::keySequence(input, QKeySequence::Paste); });
    QVERIFY(StallProbe::waitFor([strip] { return strip->images().size() == 1; }));
    StallProbe::spin(20);
    QVERIFY(probe.within("pasting a 4000x3000 JPEG from another program"));
    QCOMPARE(strip->images().at(0).mime, QString("image/jpeg"));
    QCOMPARE(strip->images().at(0).data, jpeg); // as it was, not decoded and encoded again
    // Cut short: refused in the projector's words, nothing attached.
    QGuiApplication::clipboard()->setMimeData(new OtherProgramsClipboard(QStringLiteral("image/jpeg"), jpeg.left(jpeg.size() / 2)));
    QTest::keySequence(input, QKeySequence::Paste);
    QTRY_VERIFY(!note(w)->isHidden());
    QCOMPARE(strip->images().size(), 1);
    // XPM (Qt reads it, the projector does not): made PNG.
    QByteArray xpm;
    QBuffer buffer(&xpm);
    buffer.open(QIODevice::WriteOnly);
    QImage small(64, 48, QImage::Format_RGB32);
    small.fill(Qt::darkMagenta);
    QVERIFY(small.save(&buffer, "XPM"));
    QGuiApplication::clipboard()->setMimeData(new OtherProgramsClipboard(QStringLiteral("image/x-xpixmap"), xpm));
    QTest::keySequence(input, QKeySequence::Paste);
    QTRY_COMPARE(strip->images().size(), 2);
    QCOMPARE(strip->images().at(1).mime, QString("image/png"));
    // PPM: the projector reads it, but a chat keeps PNG, JPEG, GIF or BMP (a type it can name).
    QByteArray ppm;
    QBuffer ppmBuffer(&ppm);
    ppmBuffer.open(QIODevice::WriteOnly);
    QVERIFY(small.save(&ppmBuffer, "PPM"));
    QGuiApplication::clipboard()->setMimeData(new OtherProgramsClipboard(QStringLiteral("image/x-portable-pixmap"), ppm));
    QTest::keySequence(input, QKeySequence::Paste);
    QTRY_COMPARE(strip->images().size(), 3);
    QCOMPARE(strip->images().at(2).mime, QString("image/png"));
}

// A one-colour PNG as ImageMagick writes it (1 bit, a palette): its thumbnail was black and white
// noise (QImage::scaled keeps 1 bit and drops the palette); the viewer showed it right.
void TestAttachments::oneBitPictureKeepsItsColour()
{
    QImage mono(640, 480, QImage::Format_Mono);
    mono.setColorTable({qRgb(0x87, 0xce, 0xeb), qRgb(255, 255, 255)});
    mono.fill(0);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    QVERIFY(mono.save(&buffer, "PNG"));
    QImage decoded;
    QVERIFY(decoded.loadFromData(png));
    QCOMPARE(decoded.depth(), 1);
    // The strip's thumbnail, the chat's and the viewer's: one function.
    const QImage thumb = fittedImage(decoded, QSize(96, 96));
    QCOMPARE(thumb.size(), QSize(96, 72));
    for (const QPoint at : {QPoint(3, 3), QPoint(4, 3), QPoint(20, 17)})
        QCOMPARE(QColor(thumb.pixel(at)).name(), QString("#87ceeb"));
}

// Twenty pictures waiting in the strip: the window keeps its width (each thumbnail made the
// window's minimum about 90 px wider, and a window at its minimum grew by as much on every paste),
// the thumbnails scroll sideways, Attach stays in view, and the message box keeps the keyboard.
void TestAttachments::manyPicturesKeepTheWindowsWidth()
{
    Window w;
    QVERIFY(open(w, TestFixtures::instance().tinyVision(), true));
    w.window->resize(w.window->minimumSizeHint().width(), w.window->height());
    QTRY_COMPARE(w.window->width(), w.window->minimumSizeHint().width());
    const int minWidth = w.window->minimumSizeHint().width();
    const QSize size = w.window->size();
    AttachmentStrip *strip = w.window->attachments();
    QImage picture(400, 300, QImage::Format_RGB32);
    picture.fill(Qt::darkCyan);
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    QVERIFY(picture.save(&buffer, "PNG"));
    for (int i = 0; i < 20; ++i)
        strip->addImageBytes(png, QStringLiteral("picture %1").arg(i));
    QTRY_COMPARE(strip->images().size(), 20);
    QTest::qWait(50); // layouts settle
    QCOMPARE(w.window->minimumSizeHint().width(), minWidth);
    QCOMPARE(w.window->size(), size);
    const QList<QToolButton *> thumbs = strip->findChildren<QToolButton *>(QStringLiteral("attachmentThumb"));
    QCOMPARE(thumbs.size(), 20);
    auto *area = strip->findChild<QScrollArea *>(QStringLiteral("attachmentThumbs"));
    QVERIFY(area);
    const QRect shown(strip->attachButton()->mapTo(w.window.get(), QPoint(0, 0)), strip->attachButton()->size());
    QVERIFY(w.window->rect().contains(shown));
    // On a laptop's screen (1366 wide) several show at once, beside Attach, the rest scrolled to.
    w.window->resize(1366, 700);
    QTRY_COMPARE(w.window->width(), 1366);
    const int box = thumbs.first()->parentWidget()->width(); // a thumbnail and its remove button
    QTRY_VERIFY2(area->viewport()->width() >= 5 * box, qPrintable(QString::number(area->viewport()->width())));
    QVERIFY(area->widget()->width() > area->viewport()->width());
    QVERIFY(area->horizontalScrollBar()->isVisible());
    // The wheel scrolls them sideways (there is nothing to scroll up and down), a mouse's and a
    // touchpad's swipe that is mostly up and down.
    for (const QPoint turn : {QPoint(0, -120), QPoint(6, -120)}) {
        area->horizontalScrollBar()->setValue(0);
        QWheelEvent wheel(QPointF(10, 10), area->viewport()->mapToGlobal(QPointF(10, 10)), QPoint(), turn,
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(area->viewport(), &wheel);
        QVERIFY2(area->horizontalScrollBar()->value() > 0, qPrintable(QStringLiteral("%1,%2").arg(turn.x()).arg(turn.y())));
    }
    // The last one scrolled to, and removed: the others stay, and typing goes on in the message box.
    MessageInput *input = w.window->messageInput();
    input->setFocus();
    QTRY_VERIFY(input->hasFocus());
    area->ensureWidgetVisible(thumbs.last());
    auto *remove = thumbs.last()->parentWidget()->findChild<QToolButton *>(QStringLiteral("removeAttachment"));
    QVERIFY(remove);
    QTest::mouseClick(remove, Qt::LeftButton);
    QCOMPARE(strip->images().size(), 19);
    QCOMPARE(strip->findChildren<QToolButton *>(QStringLiteral("attachmentThumb")).size(), 19);
    QVERIFY2(input->hasFocus(), QApplication::focusWidget() ? QApplication::focusWidget()->metaObject()->className() : "none");
}

QTEST_MAIN(TestAttachments)
#include "tst_attachments.moc"
