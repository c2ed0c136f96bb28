#pragma once

#include "chattypes.h"

#include <QImage>
#include <QList>
#include <QWidget>

#include <functional>

class QHBoxLayout;
class QLabel;
class QScrollArea;
class QToolButton;
class VisionController;

// The images waiting to be sent with the next message: thumbnails with a remove button, an
// "Attach image" button, and a line that says what is wrong (a file that is not an image, a
// model that cannot see images). Files come from the button, from drops and from pastes on
// the message box (MessageInput); each is read, checked and made a thumbnail on a pool thread
// (a 4000x3000 picture takes a few hundred ms to decode) before it is shown, and a bad one never
// touches what was typed.
class AttachmentStrip : public QWidget
{
    Q_OBJECT
public:
    // Calls back with the chosen files (none: cancelled); does not block.
    using FileChooser = std::function<void(QWidget *parent, std::function<void(const QStringList &paths)> done)>;
    explicit AttachmentStrip(VisionController *vision, QWidget *parent = nullptr);

    const QList<ChatImage> &images() const { return m_images; }
    // Pictures still being read: sending waits for them (MainWindow says so).
    bool isReading() const { return m_reading > 0; }
    void clear();
    void addFiles(const QStringList &paths);
    void addImageBytes(const QByteArray &bytes, const QString &what);
    // A picture as pixels (a paste): made PNG, read and checked off the GUI thread.
    void addPicture(const QImage &image, const QString &what);
    QString problem() const; // the line shown, empty when none
    void setFileChooser(FileChooser chooser) { m_choose = std::move(chooser); } // seam for tests
    QToolButton *attachButton() const { return m_attach; }

signals:
    void imagesChanged();
    void viewRequested(const ChatImage &image);

protected:
    void changeEvent(QEvent *event) override;

private:
    // One picture read and checked off the GUI thread, with its thumbnail and size.
    struct Prepared {
        ChatImage image;
        QImage thumbnail;
        QSize size;
        QString error; // empty: image is good
    };
    static Prepared prepare(shoehorn::Result<ChatImage> read);
    static Prepared prepareBytes(const QByteArray &bytes, const QString &what); // `what`: named in its error
    // Runs `read` on the pool, counted as a read until its pictures are added.
    void readOffThread(std::function<QList<Prepared>()> read);
    void addPrepared(const QList<Prepared> &ready);
    void rebuild();
    void updateNote();
    void retranslate();

    VisionController *m_vision;
    QList<ChatImage> m_images;
    QList<QImage> m_thumbnails; // beside m_images
    QList<QSize> m_sizes;
    int m_reading = 0;
    quint64 m_generation = 0; // clear() drops what is still being read
    QStringList m_errors;
    QScrollArea *m_thumbsArea = nullptr;
    QHBoxLayout *m_thumbs = nullptr; // in m_thumbsArea
    QToolButton *m_attach = nullptr;
    QLabel *m_note = nullptr;
    FileChooser m_choose;
};
