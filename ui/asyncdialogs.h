#pragma once

// Dialogs that never block: each opens window-modal (QDialog::open) and calls `done` when the
// user has answered, from the event loop that was already running. Qt's static helpers
// (QFileDialog::getOpenFileName, QMessageBox::warning, QInputDialog::getText) run a nested
// event loop inside the call instead, in which anything (a finished answer, a load, a timer)
// can run under the caller's feet. `done` is not called when `parent` goes first.
#include <QMessageBox>
#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace AsyncDialogs {

using PathDone = std::function<void(const QString &path)>; // empty: cancelled

void openFile(QWidget *parent, const QString &title, const QString &dir, const QString &filter, PathDone done);
void openFiles(QWidget *parent, const QString &title, const QString &filter,
               std::function<void(const QStringList &paths)> done);
void saveFile(QWidget *parent, const QString &title, const QString &suggested, const QString &filter,
              PathDone done);
void chooseFolder(QWidget *parent, const QString &title, PathDone done);
// A message with an OK button; nothing waits for it.
void message(QWidget *parent, QMessageBox::Icon icon, const QString &title, const QString &text);
// Yes or No, No the default.
void ask(QWidget *parent, const QString &title, const QString &text, std::function<void(bool yes)> done);
// One line of text; `done` only when the user accepts.
void text(QWidget *parent, const QString &title, const QString &label, const QString &current,
          std::function<void(const QString &)> done);

} // namespace AsyncDialogs
