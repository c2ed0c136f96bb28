#include "asyncdialogs.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QPushButton>

namespace AsyncDialogs {

namespace {

QFileDialog *fileDialog(QWidget *parent, const QString &title, const QString &dir, const QString &filter,
                        QFileDialog::FileMode mode)
{
    auto *d = new QFileDialog(parent, title, dir, filter);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setFileMode(mode);
    return d;
}

// The dialog's chosen paths once it closes; none when it was cancelled.
void whenChosen(QFileDialog *d, std::function<void(const QStringList &)> done)
{
    QObject::connect(d, &QFileDialog::finished, d, [d, done = std::move(done)](int result) {
        done(result == QDialog::Accepted ? d->selectedFiles() : QStringList());
    });
    d->open();
}

} // namespace

void openFile(QWidget *parent, const QString &title, const QString &dir, const QString &filter, PathDone done)
{
    whenChosen(fileDialog(parent, title, dir, filter, QFileDialog::ExistingFile),
               [done = std::move(done)](const QStringList &p) { done(p.isEmpty() ? QString() : p.front()); });
}

void openFiles(QWidget *parent, const QString &title, const QString &filter,
               std::function<void(const QStringList &)> done)
{
    whenChosen(fileDialog(parent, title, QString(), filter, QFileDialog::ExistingFiles), std::move(done));
}

void saveFile(QWidget *parent, const QString &title, const QString &suggested, const QString &filter, PathDone done)
{
    QFileDialog *d = fileDialog(parent, title, QString(), filter, QFileDialog::AnyFile);
    d->setAcceptMode(QFileDialog::AcceptSave);
    d->selectFile(suggested);
    whenChosen(d, [done = std::move(done)](const QStringList &p) { done(p.isEmpty() ? QString() : p.front()); });
}

void chooseFolder(QWidget *parent, const QString &title, PathDone done)
{
    QFileDialog *d = fileDialog(parent, title, QString(), QString(), QFileDialog::Directory);
    d->setOption(QFileDialog::ShowDirsOnly);
    whenChosen(d, [done = std::move(done)](const QStringList &p) { done(p.isEmpty() ? QString() : p.front()); });
}

void message(QWidget *parent, QMessageBox::Icon icon, const QString &title, const QString &text)
{
    auto *box = new QMessageBox(icon, title, text, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void ask(QWidget *parent, const QString &title, const QString &text, std::function<void(bool)> done)
{
    auto *box = new QMessageBox(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::No);
    QObject::connect(box, &QMessageBox::finished, box, [box, done = std::move(done)] {
        done(box->clickedButton() == box->button(QMessageBox::Yes));
    });
    box->open();
}

void text(QWidget *parent, const QString &title, const QString &label, const QString &current,
          std::function<void(const QString &)> done)
{
    auto *d = new QInputDialog(parent);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->setWindowTitle(title);
    d->setLabelText(label);
    d->setTextValue(current);
    QObject::connect(d, &QInputDialog::finished, d, [d, done = std::move(done)](int result) {
        if (result == QDialog::Accepted)
            done(d->textValue());
    });
    d->open();
}

} // namespace AsyncDialogs
