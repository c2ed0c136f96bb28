#pragma once

#include "chattypes.h"

#include <QDialog>

// An attached image at full size (scaled down to fit the screen), from a thumbnail. Decoded off
// the GUI thread.
class ImageViewer : public QDialog
{
    Q_OBJECT
public:
    explicit ImageViewer(const ChatImage &image, QWidget *parent = nullptr);

signals:
    void pictureShown(); // the decoded picture (or why it cannot be read) replaced "Opening…"
};
