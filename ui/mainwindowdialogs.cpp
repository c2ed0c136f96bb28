// The dialogs MainWindow shows, behind the seams tests replace (setErrorPresenter, ...), and
// Stop, which asks to quit when the answer does not stop.
#include "mainwindow.h"

#include "asyncdialogs.h"
#include "chatcontroller.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

void MainWindow::installDialogs()
{
    using namespace AsyncDialogs;
    m_showError = [this](const QString &title, const QString &text) { message(this, QMessageBox::Warning, title, text); };
    m_showInfo = [this](const QString &title, const QString &text) {
        message(this, QMessageBox::Information, title, text);
    };
    m_chooseFile = [this](PathDone done) {
        openFile(this, tr("Open a GGUF model"), QString(), tr("GGUF models (*.gguf);;All files (*)"), std::move(done));
    };
    m_choosePresets = [this](PathDone done) {
        openFile(this, tr("Import llama-server presets"), QString(), tr("Preset files (*.ini);;All files (*)"),
                 std::move(done));
    };
    m_chooseChat = [this](PathDone done) {
        openFile(this, tr("Import a chat"), QString(), tr("Shoehorn chats (*.json);;All files (*)"), std::move(done));
    };
    m_chooseSave = [this](const QString &suggested, const QString &filter, PathDone done) {
        saveFile(this, tr("Export chat"), suggested, filter, std::move(done));
    };
    m_locate = [this](const QString &missing, std::function<void(const QString &)> done) {
        auto *box = new QMessageBox(QMessageBox::Question, tr("Model not found"),
                                    tr("This chat's model is no longer at %1.").arg(missing), QMessageBox::Cancel, this);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setInformativeText(tr("Locate the file to load it and keep chatting."));
        QPushButton *locate = box->addButton(tr("Locate…"), QMessageBox::AcceptRole);
        connect(box, &QMessageBox::finished, this, [this, box, locate, missing, done] {
            if (box->clickedButton() != locate)
                return done(QString());
            openFile(this, tr("Locate the model"), QFileInfo(missing).absolutePath(),
                     tr("GGUF models (*.gguf);;All files (*)"), done);
        });
        box->open();
    };
    m_askQuit = [this](const QString &text, std::function<void(bool)> done) {
        ask(this, tr("The answer does not stop"), text, std::move(done));
    };
}

void MainWindow::stopAnswer()
{
    if (m_model->state() != LoadedModel::State::Generating)
        return;
    m_controller->stop();
    // Stop is seen between micro-batches and tokens; inside a chat template that spins, or a
    // computation llama.cpp cannot interrupt, it is not. Then say so instead of doing nothing.
    const int before = ++m_stopRequests;
    QTimer::singleShot(kStopGraceMs, this, [this, before] {
        if (before != m_stopRequests || m_model->state() != LoadedModel::State::Generating)
            return;
        m_askQuit(tr("The answer does not stop: the model is busy where Shoehorn cannot interrupt it (for "
                     "example a chat template that never finishes). Your chats are saved. Quit Shoehorn?"),
                  [](bool quit) {
                      if (quit)
                          QCoreApplication::quit(); // main() does not wait for the stuck worker (2 s at most)
                  });
    });
}
