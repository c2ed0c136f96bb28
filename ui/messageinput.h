#pragma once

#include <QImage>
#include <QPlainTextEdit>

// The message box: Enter sends, Shift+Enter adds a new line. Image files dropped on it and
// images pasted into it become attachments (imageFilesDropped, imagePasted, picturePasted),
// never text.
class MessageInput : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit MessageInput(QWidget *parent = nullptr);
    QSize sizeHint() const override;

signals:
    void submitted();
    void imageFilesDropped(const QStringList &paths);
    void imagePasted(const QByteArray &bytes); // the clipboard's own encoded image (PNG, JPEG, ...)
    void picturePasted(const QImage &image);   // only pixels offered (a picture from this process)

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool canInsertFromMimeData(const QMimeData *source) const override;
    void insertFromMimeData(const QMimeData *source) override;
};
