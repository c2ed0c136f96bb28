#pragma once

#include <QWidget>

// What the window shows before any model: what to do, and a button to do it.
class EmptyPage : public QWidget
{
    Q_OBJECT
public:
    explicit EmptyPage(QWidget *parent = nullptr);

signals:
    void openRequested();
};
