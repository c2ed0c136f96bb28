#pragma once

#include <QElapsedTimer>
#include <QStringList>
#include <QWidget>

class LoadedModel;
class ElidedLabel;
class QProgressBar;

// The strip above the chat while a model loads: which file, how far, about how long is left,
// each out-of-memory retry as it happens, and Cancel. Shown only while the model loads.
class LoadStrip : public QWidget
{
    Q_OBJECT
public:
    explicit LoadStrip(LoadedModel *model, QWidget *parent = nullptr);
    // The out-of-memory retry that let the last load succeed, in words; empty if there was none.
    // Taken once (the next load starts without it).
    QString takeRetry();

private:
    void onStateChanged();
    void onProgress(double fraction);

    LoadedModel *m_model;
    ElidedLabel *m_label; // a long file name or retry sentence never widens the window
    QProgressBar *m_bar;
    QElapsedTimer m_timer;
    QStringList m_retries; // of the load in progress
};
