#include "mainwindow.h"

#include "chatcontroller.h"

#include "apidialog.h"
#include "remotemachines.h"
#include "remotemachinesdialog.h"
#include "attachmentstrip.h"
#include "appsettings.h"
#include "chatlist.h"
#include "chatmodel.h"
#include "chatjson.h"
#include "chatview.h"
#include "composer.h"
#include "conversationlist.h"
#include "conversationpanel.h"
#include "emptypage.h"
#include "errortext.h"
#include "imageviewer.h"
#include "languagemenu.h"
#include "loadstrip.h"
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
#include <QRegularExpression>
#include <QScreen>
#include <QPushButton>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

MainWindow::MainWindow(const WindowParts &parts, QWidget *parent)
    : QMainWindow(parent), m_parts(parts), m_model(parts.model), m_controller(parts.chat), m_library(parts.library)
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
    onStateChanged(m_model->state());
    // Said once the window is up: the history was moved aside, is read-only, or is not saved.
    if (const HistoryProblem problem = m_parts.history->problem(); !problem.isNone())
        QTimer::singleShot(0, this, [this, problem] { m_showError(tr("Chat history"), ErrorText::history(problem)); });
}

MessageInput *MainWindow::messageInput() const
{
    return m_composer->input();
}

AttachmentStrip *MainWindow::attachments() const
{
    return m_composer->attachments();
}

int MainWindow::editingRow() const
{
    return m_composer->editingRow();
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
    connect(m_model, &LoadedModel::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_model, &LoadedModel::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_model, &LoadedModel::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_controller, &ChatController::generationFailed, this, [this](const shoehorn::Error &e) {
        m_showError(ErrorText::title(e.code), ErrorText::message(e));
    });
    connect(m_controller, &ChatController::storageFailed, this,
            [this](ConversationRepository::Write what, const shoehorn::Error &error) {
        // SQLite's own words ("database or disk is full"), after what was being saved.
        const QString text = tr("Shoehorn could not save %1 in the chat history: %2")
                                 .arg(ErrorText::historyWrite(what), QString::fromStdString(error.detail));
        statusBar()->showMessage(text, 10000);
        if (!std::exchange(m_storageWarned, true)) // once: an answer checkpoints every second
            m_showError(tr("Chat history not saved"), text);
    });
}

void MainWindow::buildUi()
{
    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->setContentsMargins(0, 0, 0, 0);

    m_loadStrip = new LoadStrip(m_model, central);
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
    m_status = new StatusStrip(m_model, m_controller, this);
    statusBar()->addWidget(m_status, 1);
    // QStatusBar hides its widgets for a message only if they are visible then: a message from a
    // load that ends before the window is shown was drawn over the model's name.
    connect(statusBar(), &QStatusBar::messageChanged, m_status,
            [this](const QString &message) { m_status->setVisible(message.isEmpty()); });
    // While the local API runs, where it is: one glance tells other tools can use the model.
    m_apiIndicator = new QLabel(this);
    m_apiIndicator->setObjectName(QStringLiteral("apiIndicator"));
    m_apiIndicator->hide();
    statusBar()->addPermanentWidget(m_apiIndicator);
    connect(m_parts.api, &ApiController::stateChanged, this, [this](ApiController::State s) {
        m_apiIndicator->setVisible(s == ApiController::State::On);
        m_apiIndicator->setText(tr("API: %1").arg(m_parts.api->baseUrl() + QStringLiteral("/v1")));
    });
    // Paused (503) while auto-tune measures the model: the indicator says so.
    connect(m_parts.api, &ApiController::statusUpdated, this, [this](const shoehorn::ApiStatus &st) {
        const QString url = m_parts.api->baseUrl() + QStringLiteral("/v1");
        m_apiIndicator->setText(st.unavailable.empty() ? tr("API: %1").arg(url)
                                                       : tr("API: %1 (paused while auto-tune measures)").arg(url));
    });
}

void MainWindow::buildChatPage()
{
    // Chat: the conversation and, under it, where the user writes.
    m_chatPage = new QWidget(m_pages);
    auto *chat = new QVBoxLayout(m_chatPage);
    m_view = new ChatView(m_chatPage);
    m_view->setChatModel(m_controller->chatModel());
    chat->addWidget(m_view, 1);
    m_composer = new Composer(m_controller, m_model, m_parts.vision, m_chatPage);
    chat->addWidget(m_composer);
    m_pages->addWidget(m_chatPage);
    connect(m_view, &ChatView::regenerateRequested, m_controller, &ChatController::regenerate);
    connect(m_view, &ChatView::deleteRequested, m_controller, &ChatController::deleteMessage);
    connect(m_view, &ChatView::versionRequested, m_controller, &ChatController::showVersion);
    connect(m_view, &ChatView::editRequested, m_composer, &Composer::startEdit);
    connect(m_view, &ChatView::imageRequested, this, &MainWindow::showImage);
    connect(m_view, &ChatView::copied, this, &MainWindow::showNote);
    connect(m_composer, &Composer::imageRequested, this, &MainWindow::showImage);
    connect(m_composer, &Composer::stopRequested, this, &MainWindow::stopAnswer);
    connect(m_composer, &Composer::message, statusBar(), &QStatusBar::showMessage);
}

void MainWindow::showImage(const ChatImage &image)
{
    auto *viewer = new ImageViewer(image, this);
    viewer->setAttribute(Qt::WA_DeleteOnClose);
    viewer->show();
}

void MainWindow::buildDocks()
{
    m_chats = new ChatList(m_controller, m_parts.conversations, this);
    addDockWidget(Qt::LeftDockWidgetArea, m_chats);
    // A stored chat continues with its own model: load it if another one (or none) is loaded.
    connect(m_chats, &ChatList::conversationOpened, this, [this](const QString &modelPath) {
        m_pages->setCurrentWidget(m_chatPage);
        if (modelPath.isEmpty() || modelPath == m_model->model().path)
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
    const bool haveChats = m_parts.conversations && !m_parts.conversations->isEmpty();
    (haveChats ? static_cast<QDockWidget *>(m_chats) : m_browser)->raise();
    connect(m_browser, &ModelBrowser::openRequested, this, &MainWindow::openModel);
    connect(m_browser, &ModelBrowser::browseRequested, this, &MainWindow::openModelDialog);

    m_offload = new OffloadPanel(m_parts.offload, m_model, m_parts.tuning, this);
    addDockWidget(Qt::RightDockWidgetArea, m_offload);
    m_conversation = new ConversationPanel(m_model, m_controller, this);
    addDockWidget(Qt::RightDockWidgetArea, m_conversation);
    tabifyDockWidget(m_offload, m_conversation);
    m_offload->raise();
    // Picking a model in the browser shows its plan before anything loads.
    connect(m_browser->view(), &QTableView::clicked, this,
            [this](const QModelIndex &index) { m_offload->setModelPath(m_library->pathAt(index.row())); });
    connect(m_parts.offload, &OffloadController::modelChanged, m_browser,
            [this] { m_browser->showModel(m_parts.offload->modelPath()); });
    m_browser->showModel(m_parts.offload->modelPath());
    // The Fit column answers for the machine the panel plans for.
    connect(m_offload, &OffloadPanel::targetChanged, this, [this] { m_library->setTarget(m_offload->currentTarget()); });
    // A copy says so in the status bar: nothing else on screen changes.
    connect(m_offload, &OffloadPanel::copied, this, &MainWindow::showNote);
    m_library->setTarget(m_offload->currentTarget());
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(tr("&Open Model…"), this, &MainWindow::openModelDialog);
    open->setShortcut(QKeySequence::Open);
    QAction *newChat = file->addAction(tr("&New Chat"), this, [this] {
        m_composer->cancelEdit();
        m_controller->newChat();
        m_composer->input()->setFocus(); // typing goes to the new chat, not to the list
    });
    newChat->setShortcut(QKeySequence::New);
    file->addAction(tr("&Import llama-server Presets…"), this, &MainWindow::importPresets);
    QAction *exportAction = file->addAction(tr("&Export Chat…"), this, &MainWindow::exportChat);
    exportAction->setObjectName(QStringLiteral("exportChatAction"));
    exportAction->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+E")));
    file->addAction(tr("Import Chat…"), this, &MainWindow::importChat);
    file->addSeparator();
    QMenu *model = menuBar()->addMenu(tr("&Model"));
    model->addMenu(new VisionMenu(m_model, m_parts.vision, this));
    QAction *remote = model->addAction(tr("&Remote Machines…"), this, [this] {
        if (!m_remoteDialog)
            m_remoteDialog = new RemoteMachinesDialog(m_parts.remote, this);
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
        m_composer->cancelEdit();
        stopAnswer();
    });
    addAction(stop);
}

void MainWindow::showApiDialog()
{
    if (!m_apiDialog)
        m_apiDialog = new ApiDialog(m_parts.api, this);
    m_apiDialog->show();
    m_apiDialog->raise();
    m_apiDialog->activateWindow();
}






void MainWindow::closeEvent(QCloseEvent *event)
{
    AppSettings::setWindow(saveGeometry(), saveState());
    QMainWindow::closeEvent(event);
}



void MainWindow::onStateChanged(LoadedModel::State state)
{
    const bool chatting = m_model->hasModel() && state != LoadedModel::State::NoModel;
    m_pages->setCurrentWidget(chatting || m_controller->chatModel()->rowCount() > 0 ? m_chatPage : m_emptyPage);
    m_status->updateModel();
}

void MainWindow::onModelLoaded(const ModelSummary &summary)
{
    // What runs differently than asked, all of it: one message each would hide the one before.
    QStringList said;
    if (const QString retry = m_loadStrip->takeRetry(); !retry.isEmpty())
        said << tr("Loaded after running out of memory: %1").arg(retry); // safer settings, and why
    if (const QString off = ErrorText::speculationOff(summary.speculationOff); !off.isEmpty())
        said << off; // the chat runs, without speculation
    if (!summary.templateFallback.isEmpty()) // the chat runs, in ChatML
        said << tr("This model's chat template cannot be used (%1): chats use ChatML instead, "
                   "which may not be the format the model was trained on.")
                    .arg(summary.templateFallback);
    if (!said.isEmpty())
        statusBar()->showMessage(said.join(QLatin1Char(' ')), 15000 * int(said.size()));
    m_composer->input()->setFocus();
}

void MainWindow::onLoadFailed(const shoehorn::Error &error)
{
    m_status->updateModel();
    if (m_model->hasModel()) // the file was refused and the loaded model stays: the panel shows it again
        m_offload->setModelPath(m_model->model().path);
    if (error.code == shoehorn::ErrorCode::Cancelled) {
        statusBar()->showMessage(tr("Loading cancelled."), 4000);
        return;
    }
    // Which file: the details name the field or the stage, not always the file.
    const QString file = QFileInfo(m_model->loadingPath()).fileName();
    m_showError(ErrorText::title(error.code),
                (file.isEmpty() ? QString() : tr("%1 could not be opened.").arg(file) + QLatin1Char('\n')) +
                    ErrorText::message(error));
}

// A short note in the status bar where nothing else on screen changes (a copy).
void MainWindow::showNote(const QString &text)
{
    statusBar()->showMessage(text, 4000);
}
