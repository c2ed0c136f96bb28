// The dialogs MainWindow shows, behind the seams tests replace (setErrorPresenter, ...).
#include "mainwindow.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>

void MainWindow::installDialogs()
{
    m_showError = [this](const QString &title, const QString &text) { QMessageBox::warning(this, title, text); };
    m_chooseFile = [this] {
        return QFileDialog::getOpenFileName(this, tr("Open a GGUF model"), QString(),
                                            tr("GGUF models (*.gguf);;All files (*)"));
    };
    m_showInfo = [this](const QString &title, const QString &text) { QMessageBox::information(this, title, text); };
    m_choosePresets = [this] {
        return QFileDialog::getOpenFileName(this, tr("Import llama-server presets"), QString(),
                                            tr("Preset files (*.ini);;All files (*)"));
    };
    m_chooseSave = [this](const QString &suggested, const QString &filter) {
        return QFileDialog::getSaveFileName(this, tr("Export chat"), suggested, filter);
    };
    m_locate = [this](const QString &missing) {
        QMessageBox box(QMessageBox::Question, tr("Model not found"),
                        tr("This chat's model is no longer at %1.").arg(missing), QMessageBox::Cancel, this);
        box.setInformativeText(tr("Locate the file to load it and keep chatting."));
        QPushButton *locate = box.addButton(tr("Locate…"), QMessageBox::AcceptRole);
        box.exec();
        if (box.clickedButton() != locate)
            return QString();
        return QFileDialog::getOpenFileName(this, tr("Locate the model"), QFileInfo(missing).absolutePath(),
                                            tr("GGUF models (*.gguf);;All files (*)"));
    };
}
