// A sample for tests/check_no_nested_loops.cmake: every line below that runs a nested event
// loop must be found (6; with core/core.cpp: 7). Not compiled.
void sample(QWidget *w, QMenu &menu, QDialog *dialog)
{
    QMessageBox::warning(w, "title", "text");
    const QString path = QFileDialog::getOpenFileName(w, "Open");
    const QString title = QInputDialog::getText(w, "Rename", "Title");
    menu.exec(QCursor::pos());
    dialog->exec();
    QEventLoop loop;
    // QMessageBox::information(w, "in a comment", "is not code");
}
