// What MainWindow does with files: open a model (the dialog, the command line, a drop, a stored
// chat's model that moved), export and import chats, import llama-server presets.
#include "mainwindow.h"

#include "errortext.h"
#include "chatcontroller.h"

#include "chatjson.h"
#include "chatlist.h"
#include "chatmodel.h"
#include "conversationlist.h"
#include "modelbrowser.h"
#include "modellibrary.h"
#include "offloadpanel.h"
#include "presetimport.h"
#include "visioncontroller.h"
#include "workpool.h"

#include <QDragEnterEvent>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMimeData>
#include <QRegularExpression>
#include <QStackedWidget>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

void MainWindow::offerLocate(const QString &missingPath)
{
    const qint64 id = m_controller->currentConversation();
    m_locate(missingPath, [this, id, missingPath](const QString &found) {
        if (found.isEmpty()) {
            statusBar()->showMessage(tr("This chat's model is no longer at %1.").arg(missingPath), 15000);
            return;
        }
        m_offload->setModelPath(found);
        if (m_controller->relocateConversationModel(id, found))
            m_model->openModel(found);
    });
}

void MainWindow::exportChat()
{
    if (m_controller->chatModel()->rowCount() == 0) {
        m_showInfo(tr("Export chat"), tr("There is nothing to export yet: this chat has no messages."));
        return;
    }
    QString name = m_controller->conversationTitle().simplified();
    name.replace(QRegularExpression(QStringLiteral("[/\\\\:*?\"<>|]")), QStringLiteral("_"));
    if (name.isEmpty())
        name = tr("chat");
    m_chooseSave(name + QStringLiteral(".md"), tr("Markdown (*.md);;JSON (*.json)"), [this](const QString &path) {
        if (!path.isEmpty())
            exportChatTo(path);
    });
}

void MainWindow::exportChatTo(const QString &path)
{
    m_controller->completeChat(); // pictures opened a moment ago are written with their bytes
    const ChatJson::ExportHeader header{m_controller->conversationTitle(), m_model->model().path,
                                        m_controller->systemPrompt()};
    // A copy that shares the messages' text and pictures: the chat goes on meanwhile.
    const ChatJson::Messages messages = m_controller->chatModel()->messages();
    const shoehorn::GenerationOptions options = m_controller->generationOptions();
    statusBar()->showMessage(tr("Exporting the chat to %1…").arg(path));
    auto *writing = new QFutureWatcher<shoehorn::Error>(this);
    connect(writing, &QFutureWatcherBase::finished, this, [this, writing, path] {
        writing->deleteLater();
        if (const shoehorn::Error e = writing->result()) {
            statusBar()->clearMessage();
            m_showError(tr("Cannot export the chat"), tr("Writing %1 failed: %2").arg(path, ErrorText::message(e)));
            return;
        }
        statusBar()->showMessage(tr("Chat exported to %1").arg(path), 6000);
    });
    writing->setFuture(QtConcurrent::run(writePool(), [path, header, messages, options] {
        return ChatJson::exportToFile(path, header, messages, options);
    }));
}

void MainWindow::importChat()
{
    m_chooseChat([this](const QString &path) {
        if (!path.isEmpty())
            importChatFile(path);
    });
}

void MainWindow::importChatFile(const QString &path)
{
    const auto refuse = [this, path](const QString &why) {
        m_showError(tr("Cannot import the chat"), tr("%1 is not a chat Shoehorn can read: %2").arg(path, why));
    };
    if (m_model->state() == LoadedModel::State::Generating) {
        refuse(tr("Wait until the answer is finished."));
        return;
    }
    m_controller->importConversation(path, this, [this, refuse](const shoehorn::Result<qint64> &imported) {
        if (!imported) {
            // What is wrong with the data (the parser's words), or why it could not be read or stored.
            const shoehorn::Error &e = imported.error();
            refuse(e.code == shoehorn::ErrorCode::Corrupt ? QString::fromStdString(e.detail) : ErrorText::message(e));
            return;
        }
        m_chats->raise();
        if (m_controller->currentConversation() != *imported) { // an answer began meanwhile
            statusBar()->showMessage(tr("The chat was imported: it is in the Chats list."), 8000);
            return;
        }
        m_pages->setCurrentWidget(m_chatPage);
        const QString model = m_parts.conversations->modelPathOf(*imported);
        if (!model.isEmpty() && model != m_model->model().path) {
            if (QFileInfo::exists(model))
                openModel(model);
            else
                offerLocate(model);
        }
    });
}

bool MainWindow::isModelFile(const QString &path)
{
    return path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) && QFileInfo(path).isFile();
}

void MainWindow::openModelDialog()
{
    m_chooseFile([this](const QString &path) {
        if (!path.isEmpty())
            openModel(path);
    });
}

void MainWindow::openModel(const QString &path)
{
    m_offload->setModelPath(path);
    m_model->openModel(path);
}

void MainWindow::openFiles(const QStringList &paths)
{
    if (!paths.isEmpty()) {
        openModel(paths.first());
        m_library->offer(paths.mid(1));
        if (paths.size() > 1) {
            m_browser->show();
            m_browser->raise();
        }
    }
    // Come to the front: un-minimise, raise, and ask the window manager for focus.
    setWindowState((windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
    show();
    raise();
    activateWindow();
}

void MainWindow::importPresets()
{
    m_choosePresets([this](const QString &path) {
        if (!path.isEmpty())
            importPresetFile(path);
    });
}

void MainWindow::importPresetFile(const QString &path)
{
    const PresetImport r = PresetImport::fromFile(path, m_model->modelSettings());
    if (r.error.code == shoehorn::ErrorCode::InvalidArgument) {
        m_showError(tr("Cannot import presets"), tr("This is not a llama-server preset file: %1")
                                                     .arg(QString::fromStdString(r.error.detail)));
        return;
    }
    if (r.error) {
        m_showError(tr("Cannot import presets"), ErrorText::message(r.error));
        return;
    }
    m_library->offer(r.models);
    QStringList lines;
    lines << tr("Imported settings for %n model(s); they are listed under Models.", "", int(r.models.size()));
    if (r.skipped > 0)
        lines << tr("%n section(s) without a model file were skipped.", "", r.skipped);
    for (const auto &issue : r.issues)
        lines << tr("Line %1 [%2] %3: %4").arg(issue.line).arg(issue.section, issue.key, issue.message);
    m_showInfo(tr("Presets imported"), lines.join(QLatin1Char('\n')));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const auto urls = event->mimeData()->urls();
    for (const QUrl &u : urls) {
        if (u.isLocalFile() && isModelFile(u.toLocalFile())) {
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const auto urls = event->mimeData()->urls();
    for (const QUrl &u : urls) {
        // A projector dropped on the window pairs with the loaded model.
        if (u.isLocalFile() && isModelFile(u.toLocalFile()) && VisionController::isProjectorFile(u.toLocalFile()) &&
            m_model->hasModel()) {
            m_parts.vision->choose(u.toLocalFile(), m_model->modelSettings().projectorOffload);
            event->acceptProposedAction();
            return;
        }
        if (u.isLocalFile() && isModelFile(u.toLocalFile())) {
            openModel(u.toLocalFile());
            event->acceptProposedAction();
            return;
        }
    }
}

void MainWindow::changeEvent(QEvent *event)
{
    QMainWindow::changeEvent(event);
    if (event->type() == QEvent::ActivationChange && isActiveWindow())
        m_library->checkFiles();
}
