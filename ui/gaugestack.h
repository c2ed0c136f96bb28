#pragma once

#include "planner.h"

#include <QList>
#include <QWidget>

class GaugeBar;
class QVBoxLayout;

// One memory gauge per GPU and one for RAM, for a plan (and what llama.cpp allocated once
// the model is loaded), with the colour legend under them.
class GaugeStack : public QWidget
{
    Q_OBJECT
public:
    explicit GaugeStack(QWidget *parent = nullptr);
    // No model: no gauges rather than empty ones.
    void show(const shoehorn::MemoryPlan *plan, const shoehorn::MemoryPlan *measured);

private:
    QVBoxLayout *m_box;
    QList<GaugeBar *> m_gauges;
};
