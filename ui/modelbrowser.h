#pragma once

#include <QDockWidget>

class ModelLibrary;
class QListView;

// Recent and offered models; double-click (or Enter) opens one.
class ModelBrowser : public QDockWidget
{
    Q_OBJECT
public:
    ModelBrowser(ModelLibrary *library, QWidget *parent = nullptr);
    QListView *view() const { return m_view; }

signals:
    void openRequested(const QString &path);
    void browseRequested();

private:
    void activate(const QModelIndex &index);
    ModelLibrary *m_library;
    QListView *m_view;
};
