#pragma once

#include <QDockWidget>

#include <functional>

class ModelLibrary;
class QTableView;

// Recent and offered models; double-click (or Enter) opens one.
class ModelBrowser : public QDockWidget
{
    Q_OBJECT
public:
    ModelBrowser(ModelLibrary *library, QWidget *parent = nullptr);
    QTableView *view() const { return m_view; }
    // Test seam: how a folder is chosen (calls back with it, empty: cancelled; does not block).
    using FolderChooser = std::function<void(std::function<void(const QString &dir)> done)>;
    void setFolderChooser(FolderChooser chooser) { m_chooseFolder = std::move(chooser); }
    // The model the offload panel shows is the row selected here, whoever changed it (a click
    // here, File > Open, a chat that loads its model); none where it is not listed.
    void showModel(const QString &path);

signals:
    void openRequested(const QString &path);
    void browseRequested();

protected:
    void changeEvent(QEvent *event) override;

private:
    void capColumns(); // how wide a column may grow, from the list's font
    void activate(const QModelIndex &index);
    void selectShown();
    ModelLibrary *m_library;
    QTableView *m_view;
    FolderChooser m_chooseFolder;
    QString m_shown;
};
