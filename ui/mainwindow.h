#pragma once

#include "chatcontroller.h"

#include <QMainWindow>

#include <functional>

class ChatView;
class MessageInput;
class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(ChatController *controller, QWidget *parent = nullptr);

    // Seams for tests: how errors are shown and how a file is chosen.
    using ErrorPresenter = std::function<void(const QString &title, const QString &text)>;
    void setErrorPresenter(ErrorPresenter presenter) { m_showError = std::move(presenter); }
    using FileChooser = std::function<QString()>;
    void setFileChooser(FileChooser chooser) { m_chooseFile = std::move(chooser); }

    static bool isModelFile(const QString &path);

public slots:
    void openModelDialog();
    void openModel(const QString &path);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void buildUi();
    void buildMenus();
    void onStateChanged(ChatController::State state);
    void onModelLoaded(const ModelSummary &summary);
    void onLoadFailed(int code, const QString &detail);
    void onAnswerFinished(const shoehorn::GenerationStats &stats);
    void sendOrStop();
    void updateModelLabel();

    ChatController *m_controller;
    QStackedWidget *m_pages = nullptr;
    QWidget *m_emptyPage = nullptr;
    QWidget *m_chatPage = nullptr;
    ChatView *m_view = nullptr;
    MessageInput *m_input = nullptr;
    QPushButton *m_sendButton = nullptr;
    QWidget *m_loadStrip = nullptr;
    QLabel *m_loadLabel = nullptr;
    QProgressBar *m_loadBar = nullptr;
    QLabel *m_modelLabel = nullptr;
    QLabel *m_statsLabel = nullptr;
    QString m_loadingPath;
    ErrorPresenter m_showError;
    FileChooser m_chooseFile;
};
