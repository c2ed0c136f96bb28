#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QString>

// "Reading the prompt: 40% (12 s left)" from the worker's prefill progress, with the time left
// estimated from the rate so far. One per place that shows it.
class PromptProgress
{
    Q_DECLARE_TR_FUNCTIONS(PromptProgress)
public:
    static QString starting(); // before the first micro-batch is done
    static QString image(int number, int count); // while an image is encoded
    QString update(int done, int total);

private:
    QElapsedTimer m_timer;
};
