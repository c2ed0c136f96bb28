#pragma once

#include "promptprogress.h"

#include <QWidget>

class ChatController;
class LoadedModel;
class QLabel;
class QProgressBar;

// The bottom strip: the loaded model, then prompt reading (percent, time left), live tok/s and
// how full the context is.
class StatusStrip : public QWidget
{
    Q_OBJECT
public:
    StatusStrip(LoadedModel *model, ChatController *chat, QWidget *parent = nullptr);
    void updateModel();

private:
    void onPrefill(int done, int total);
    void setContext(int used, int size);
    void showBusy(const QString &text);
    void showChat(); // the chat now shown: its last answer's figures, or none


    LoadedModel *m_loaded;
    ChatController *m_chat;
    QLabel *m_model;
    QLabel *m_stats;
    QProgressBar *m_context;
    PromptProgress m_prompt;
    // m_stats says what the model is busy with (reading the prompt, writing, tuning): cleared
    // when it is ready again without an answer's figures (a failed answer, a tune).
    bool m_busy = false;
};
