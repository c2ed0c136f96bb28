#pragma once

#include "promptprogress.h"

#include <QWidget>

class ChatController;
class QLabel;
class QProgressBar;

// The bottom strip: the loaded model, then prompt reading (percent, time left), live tok/s and
// how full the context is.
class StatusStrip : public QWidget
{
    Q_OBJECT
public:
    explicit StatusStrip(ChatController *controller, QWidget *parent = nullptr);
    void updateModel();

private:
    void onPrefill(int done, int total);
    void setContext(int used, int size);

    ChatController *m_controller;
    QLabel *m_model;
    QLabel *m_stats;
    QProgressBar *m_context;
    PromptProgress m_prompt;
};
