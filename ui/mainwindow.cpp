#include "mainwindow.h"

#include "apidialog.h"
#include "plantargets.h"
#include "remotemachines.h"
#include "remotemachinesdialog.h"
#include "appcore.h"
#include "attachmentstrip.h"
#include "appsettings.h"
#include "chatlist.h"
#include "chatmodel.h"
#include "chatjson.h"
#include "chatview.h"
#include "conversationlist.h"
#include "conversationpanel.h"
#include "emptypage.h"
#include "errortext.h"
#include "imageviewer.h"
#include "languagemenu.h"
#include "messageinput.h"
#include "modelbrowser.h"
#include "modellibrary.h"
#include "offloadcontroller.h"
#include "offloadpanel.h"
#include "statusstrip.h"
#include "presetimport.h"
#include "visioncontroller.h"
#include "visionmenu.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFile>
#include <QFileInfo>
#include <QTableView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScreen>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

MainWindow::MainWindow(AppCore *core, QWidget *parent)
    : QMainWindow(parent), m_core(core), m_controller(core->chat()), m_library(new ModelLibrary(this))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Shoehorn"));
    setAcceptDrops(true);
    installDialogs();
    buildUi();
    buildMenus();
    restoreGeometry(AppSettings::windowGeometry());
    if (!restoreState(AppSettings::windowState())) {
        fitInto(screen() ? screen()->availableGeometry() : QRect(0, 0, 1400, 860));
        m_offload->raise();
    }
    connectController();
    onStateChanged(m_controller->state());
    // Said once the window is up: the history was moved aside, is read-only, or is not saved.
    if (const QString problem = m_controller->storageProblem(); !problem.isEmpty())
        QTimer::singleShot(0, this, [this, problem] { m_showError(tr("Chat history"), problem); });
}

void MainWindow::fitInto(const QRect &available)
{
    // Room for the model table and the offload panel beside the chat, within the screen: a
    // 1366x768 laptop gets narrower docks, not a window larger than its screen.
    resize(std::min(1400, available.width()), std::min(860, available.height()));
    const bool small = width() < 1400;
    resizeDocks({m_chats, m_offload}, {small ? 330 : 430, small ? 370 : 390}, Qt::Horizontal);
}

void MainWindow::connectController()
{
    connect(m_controller, &ChatController::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_controller, &ChatController::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_controller, &ChatController::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_controller, &ChatController::loadProgress, this, &MainWindow::onLoadProgress);
    connect(m_controller, &ChatController::loadProgress, m_library, &ModelLibrary::loadProgress);
    connect(m_controller, &ChatController::generationFailed, this, [this](const shoehorn::Error &e) {
        m_showError(ErrorText::title(e.code), ErrorText::message(e));
    });
    connect(m_controller, &ChatController::storageFailed, this, [this](const QString &what, const QString &why) {
        const QString text = tr("Shoehorn could not save %1 in the chat history: %2").arg(what, why);
        statusBar()->showMessage(text, 10000);
        if (!std::exchange(m_storageWarned, true)) // once: an answer checkpoints every second
            m_showError(tr("Chat history not saved"), text);
    });
    connect(m_controller, &ChatController::loadRetrying, this, [this](const shoehorn::OomRetry &r) {
        m_loadLabel->setText(ErrorText::retry(r));
        m_retryNotes << ErrorText::retry(r);
    });
}

void MainWindow::buildUi()
{
    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->setContentsMargins(0, 0, 0, 0);

    // Loading strip: progress and Cancel.
    m_loadStrip = new QWidget(central);
    auto *strip = new QHBoxLayout(m_loadStrip);
    m_loadLabel = new QLabel(m_loadStrip);
    m_loadLabel->setObjectName(QStringLiteral("loadLabel"));
    m_loadBar = new QProgressBar(m_loadStrip);
    m_loadBar->setRange(0, 1000);
    m_loadBar->setTextVisible(false);
    auto *cancel = new QPushButton(tr("Cancel"), m_loadStrip);
    cancel->setObjectName(QStringLiteral("cancelLoadButton"));
    connect(cancel, &QPushButton::clicked, m_controller, &ChatController::cancelLoad);
    strip->addWidget(m_loadLabel);
    strip->addWidget(m_loadBar, 1);
    strip->addWidget(cancel);
    outer->addWidget(m_loadStrip);

    m_pages = new QStackedWidget(central);
    outer->addWidget(m_pages, 1);
    auto *emptyPage = new EmptyPage(m_pages);
    connect(emptyPage, &EmptyPage::openRequested, this, &MainWindow::openModelDialog);
    m_emptyPage = emptyPage;
    m_pages->addWidget(m_emptyPage);
    buildChatPage();
    setCentralWidget(central);
    buildDocks();
    m_status = new StatusStrip(m_controller, this);
    statusBar()->addWidget(m_status, 1);
    // While the local API runs, where it is: one glance tells other tools can use the model.
    m_apiIndicator = new QLabel(this);
    m_apiIndicator->setObjectName(QStringLiteral("apiIndicator"));
    m_apiIndicator->hide();
    statusBar()->addPermanentWidget(m_apiIndicator);
    connect(m_core->api(), &ApiController::stateChanged, this, [this](ApiController::State s) {
        m_apiIndicator->setVisible(s == ApiController::State::On);
        m_apiIndicator->setText(tr("API: %1").arg(m_core->api()->baseUrl() + QStringLiteral("/v1")));
    });
    // Paused (503) while auto-tune measures the model: the indicator says so.
    connect(m_core->api(), &ApiController::statusUpdated, this, [this](const shoehorn::ApiStatus &st) {
        const QString url = m_core->api()->baseUrl() + QStringLiteral("/v1");
        m_apiIndicator->setText(st.unavailable.empty() ? tr("API: %1").arg(url)
                                                       : tr("API: %1 (paused while auto-tune measures)").arg(url));
    });
}

void MainWindow::buildChatPage()
{
    // Chat: the conversation and the input row.
    m_chatPage = new QWidget(m_pages);
    auto *chat = new QVBoxLayout(m_chatPage);
    m_view = new ChatView(m_chatPage);
    m_view->setChatModel(m_controller->chatModel());
    chat->addWidget(m_view, 1);
    connect(m_view, &ChatView::regenerateRequested, m_controller, &ChatController::regenerate);
    connect(m_view, &ChatView::deleteRequested, m_controller, &ChatController::deleteMessage);
    connect(m_view, &ChatView::versionRequested, m_controller, &ChatController::showVersion);
    connect(m_view, &ChatView::editRequested, this, &MainWindow::startEdit);
    // The row being edited is a position in this chat: any change of rows ends the edit.
    connect(m_controller, &ChatController::conversationChanged, this, &MainWindow::cancelEdit);
    connect(m_controller->chatModel(), &QAbstractItemModel::rowsRemoved, this, &MainWindow::cancelEdit);
    connect(m_controller->chatModel(), &QAbstractItemModel::modelReset, this, &MainWindow::cancelEdit);
    // Editing a question: its text is in the box; sending answers it again.
    m_editStrip = new QWidget(m_chatPage);
    auto *editRow = new QHBoxLayout(m_editStrip);
    editRow->setContentsMargins(0, 0, 0, 0);
    auto *editLabel = new QLabel(tr("Editing your message. Sending it drops the answers that followed."), m_editStrip);
    auto *editCancel = new QPushButton(tr("Cancel editing"), m_editStrip);
    editCancel->setObjectName(QStringLiteral("cancelEditButton"));
    connect(editCancel, &QPushButton::clicked, this, &MainWindow::cancelEdit);
    editRow->addWidget(editLabel, 1);
    editRow->addWidget(editCancel);
    m_editStrip->hide();
    chat->addWidget(m_editStrip);
    m_attachments = new AttachmentStrip(m_core->vision(), m_chatPage);
    m_attachments->setObjectName(QStringLiteral("attachments"));
    chat->addWidget(m_attachments);
    auto *inputRow = new QHBoxLayout;
    m_input = new MessageInput(m_chatPage);
    m_input->setObjectName(QStringLiteral("messageInput"));
    m_sendButton = new QPushButton(tr("Send"), m_chatPage);
    m_sendButton->setObjectName(QStringLiteral("sendButton"));
    inputRow->addWidget(m_input, 1);
    inputRow->addWidget(m_sendButton, 0, Qt::AlignBottom);
    chat->addLayout(inputRow);
    m_pages->addWidget(m_chatPage);
    // Enter sends; while an answer is written it keeps both the answer and what is typed
    // (the Stop button and Esc stop it).
    connect(m_input, &MessageInput::submitted, this, [this] {
        if (m_controller->state() == ChatController::State::Generating) {
            statusBar()->showMessage(tr("The answer is still being written: your message stays here. "
                                        "Stop or Esc ends the answer."),
                                     5000);
            return;
        }
        sendOrStop();
    });
    connect(m_sendButton, &QPushButton::clicked, this, &MainWindow::sendOrStop);
    connect(m_input, &MessageInput::imageFilesDropped, m_attachments, &AttachmentStrip::addFiles);
    connect(m_input, &MessageInput::imagePasted, m_attachments,
            [this](const QByteArray &png) { m_attachments->addImageBytes(png, tr("The pasted image")); });
    connect(m_attachments, &AttachmentStrip::viewRequested, this, &MainWindow::showImage);
    connect(m_view, &ChatView::imageRequested, this, &MainWindow::showImage);
}

void MainWindow::showImage(const ChatImage &image)
{
    auto *viewer = new ImageViewer(image, this);
    viewer->setAttribute(Qt::WA_DeleteOnClose);
    viewer->show();
}

void MainWindow::buildDocks()
{
    m_chats = new ChatList(m_controller, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_chats);
    // A stored chat continues with its own model: load it if another one (or none) is loaded.
    connect(m_chats, &ChatList::conversationOpened, this, [this](const QString &modelPath) {
        m_pages->setCurrentWidget(m_chatPage);
        if (modelPath.isEmpty() || modelPath == m_controller->model().path)
            return;
        if (QFileInfo::exists(modelPath))
            openModel(modelPath);
        else
            offerLocate(modelPath);
    });
    m_browser = new ModelBrowser(m_library, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_browser);
    tabifyDockWidget(m_chats, m_browser);
    // With no chats yet, the models are what a new user needs first.
    const bool haveChats = m_controller->conversations() && !m_controller->conversations()->isEmpty();
    (haveChats ? static_cast<QDockWidget *>(m_chats) : m_browser)->raise();
    connect(m_browser, &ModelBrowser::openRequested, this, &MainWindow::openModel);
    connect(m_browser, &ModelBrowser::browseRequested, this, &MainWindow::openModelDialog);

    auto *offload = new OffloadController(m_controller, m_core->hardware(), m_core->api(), m_core->vision(), this);
    m_offload = new OffloadPanel(offload, m_controller, m_core->tuning(), this);
    connect(m_core->remote(), &RemoteMachines::limitsChanged, offload->targets(), &PlanTargets::limitsChanged);
    addDockWidget(Qt::RightDockWidgetArea, m_offload);
    m_conversation = new ConversationPanel(m_controller, this);
    addDockWidget(Qt::RightDockWidgetArea, m_conversation);
    tabifyDockWidget(m_offload, m_conversation);
    m_offload->raise();
    // Picking a model in the browser shows its plan before anything loads.
    connect(m_browser->view(), &QTableView::clicked, this,
            [this](const QModelIndex &index) { m_offload->setModelPath(m_library->pathAt(index.row())); });
    // The Fit column answers for the machine the panel plans for.
    connect(m_offload, &OffloadPanel::targetChanged, this, [this] { m_library->setTarget(m_offload->currentTarget()); });
    m_library->setTarget(m_offload->currentTarget());
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open Model…"), this, &MainWindow::openModelDialog);
    open->setShortcut(QKeySequence::Open);
    QAction *newChat = file->addAction(tr("&New Chat"), this, [this] {
        cancelEdit();
        m_controller->newChat();
    });
    newChat->setShortcut(QKeySequence::New);
    file->addAction(tr("&Import llama-server Presets…"), this, &MainWindow::importPresets);
    QAction *exportAction = file->addAction(tr("&Export Chat…"), this, &MainWindow::exportChat);
    exportAction->setObjectName(QStringLiteral("exportChatAction"));
    exportAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    file->addAction(tr("Import Chat…"), this, &MainWindow::importChat);
    file->addSeparator();
    QMenu *model = menuBar()->addMenu(tr("&Model"));
    model->addMenu(new VisionMenu(m_controller, m_core->vision(), this));
    QAction *remote = model->addAction(tr("&Remote Machines…"), this, [this] {
        if (!m_remoteDialog)
            m_remoteDialog = new RemoteMachinesDialog(m_core->remote(), this);
        m_remoteDialog->show();
        m_remoteDialog->raise();
    });
    remote->setObjectName(QStringLiteral("remoteMachinesAction"));
    QMenu *serve = menuBar()->addMenu(tr("&Serve"));
    QAction *api = serve->addAction(tr("&Local API…"), this, &MainWindow::showApiDialog);
    api->setObjectName(QStringLiteral("localApiAction"));
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_browser->toggleViewAction());
    view->addAction(m_offload->toggleViewAction());
    view->addAction(m_conversation->toggleViewAction());
    view->addAction(m_chats->toggleViewAction());
    view->addSeparator();
    view->addMenu(new LanguageMenu([this](const QString &title, const QString &text) { m_showInfo(title, text); },
                                   this));
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);

    QAction *stop = new QAction(tr("Stop"), this);
    stop->setShortcut(Qt::Key_Escape);
    connect(stop, &QAction::triggered, this, [this] {
        if (m_editingRow >= 0)
            cancelEdit();
        stopAnswer();
    });
    addAction(stop);
}

void MainWindow::showApiDialog()
{
    if (!m_apiDialog)
        m_apiDialog = new ApiDialog(m_core->api(), this);
    m_apiDialog->show();
    m_apiDialog->raise();
    m_apiDialog->activateWindow();
}






void MainWindow::startEdit(int row)
{
    const ChatModel *chat = m_controller->chatModel();
    if (row < 0 || row >= chat->rowCount() || m_controller->state() == ChatController::State::Generating)
        return;
    m_editingRow = row;
    m_input->setPlainText(chat->message(row).content);
    m_input->moveCursor(QTextCursor::End);
    m_input->setFocus();
    m_editStrip->show();
}

void MainWindow::cancelEdit()
{
    if (m_editingRow < 0)
        return;
    m_editingRow = -1;
    m_editStrip->hide();
    m_input->clear();
}







void MainWindow::closeEvent(QCloseEvent *event)
{
    AppSettings::setWindow(saveGeometry(), saveState());
    QMainWindow::closeEvent(event);
}



void MainWindow::onStateChanged(ChatController::State state)
{
    const bool loading = state == ChatController::State::Loading;
    m_loadStrip->setVisible(loading);
    if (loading) {
        // The Models list shows the model being opened at once, with its progress.
        if (m_library->loadingPath() != m_controller->loadingPath())
            m_library->loadStarted(m_controller->loadingPath());
        m_loadBar->setValue(0);
        m_loadTimer.start();
        m_loadLabel->setText(tr("Loading %1…").arg(QFileInfo(m_controller->loadingPath()).fileName()));
    }
    const bool chatting = m_controller->hasModel() && state != ChatController::State::NoModel;
    m_pages->setCurrentWidget(chatting || m_controller->chatModel()->rowCount() > 0 ? m_chatPage : m_emptyPage);
    const bool generating = state == ChatController::State::Generating;
    m_sendButton->setText(generating ? tr("Stop") : tr("Send"));
    m_sendButton->setEnabled(generating || state == ChatController::State::Ready);
    m_status->updateModel();
}

void MainWindow::onLoadProgress(double fraction)
{
    m_loadBar->setValue(int(fraction * 1000));
    const qint64 ms = m_loadTimer.isValid() ? m_loadTimer.elapsed() : 0;
    const QString name = QFileInfo(m_controller->loadingPath()).fileName();
    // The time left from the rate so far, once there is a rate to speak of.
    if (fraction > 0.02 && fraction < 1.0 && ms > 1000) {
        const int left = int(double(ms) * (1.0 - fraction) / fraction / 1000.0 + 0.5);
        m_loadLabel->setText(tr("Loading %1… %2% · about %3 s left").arg(name).arg(int(fraction * 100)).arg(left));
    }
}

void MainWindow::onModelLoaded(const ModelSummary &summary)
{
    m_library->loadEnded(true);
    // Remembered (a settings write) after the window has shown the model, and after the model's
    // settings were written (kWriteAfterLoadMs): the list's rows read them (the vision column).
    QTimer::singleShot(2 * AppSettings::kWriteAfterLoadMs, m_library,
                       [library = m_library, path = summary.path] { library->addRecent(path); });
    if (const QString off = ErrorText::speculationOff(summary.speculationOff); !off.isEmpty())
        statusBar()->showMessage(off, 15000); // the chat runs, without speculation
    if (!m_retryNotes.isEmpty()) {
        // Say that the model runs with safer settings than asked for, and why.
        statusBar()->showMessage(tr("Loaded after running out of memory: %1").arg(m_retryNotes.last()), 15000);
        m_retryNotes.clear();
    }
    m_input->setFocus();
}

void MainWindow::onLoadFailed(const shoehorn::Error &error)
{
    m_library->loadEnded(false);
    m_retryNotes.clear();
    m_status->updateModel();
    if (error.code == shoehorn::ErrorCode::Cancelled) {
        statusBar()->showMessage(tr("Loading cancelled."), 4000);
        return;
    }
    // Which file: the details name the field or the stage, not always the file.
    const QString file = QFileInfo(m_controller->loadingPath()).fileName();
    m_showError(ErrorText::title(error.code),
                (file.isEmpty() ? QString() : tr("%1 could not be opened.").arg(file) + QLatin1Char('\n')) +
                    ErrorText::message(error));
}

void MainWindow::sendOrStop()
{
    if (m_controller->state() == ChatController::State::Generating) {
        stopAnswer();
        return;
    }
    if (m_editingRow >= 0) {
        if (m_controller->editAndResend(m_editingRow, m_input->toPlainText())) {
            m_editingRow = -1;
            m_editStrip->hide();
            m_input->clear();
        }
        return;
    }
    if (m_attachments->isReading()) {
        statusBar()->showMessage(tr("An attached image is still being read: send again in a moment."), 4000);
        return;
    }
    const QList<ChatImage> images = m_attachments->images();
    if (!images.isEmpty() && !m_core->vision()->canSeeImages()) {
        // The strip says why; the text and the images stay.
        statusBar()->showMessage(tr("This model cannot see images: the message was not sent."), 6000);
        return;
    }
    if (m_controller->send(m_input->toPlainText(), images)) {
        m_input->clear();
        m_attachments->clear();
    }
}
