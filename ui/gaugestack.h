#pragma once

#include "planner.h"

#include <QList>
#include <QStringList>
#include <QWidget>

class GaugeBar;
class QLabel;
class QVBoxLayout;

// One memory gauge per GPU and one for RAM, for a plan (and what llama.cpp allocated once
// the model is loaded), with the colour legend of the kinds they show under them.
class GaugeStack : public QWidget
{
    Q_OBJECT
public:
    explicit GaugeStack(QWidget *parent = nullptr);
    // No model: no gauges rather than empty ones.
    void show(const shoehorn::MemoryPlan *plan, const shoehorn::MemoryPlan *measured);
    QStringList legendKinds() const { return m_kinds; } // the kinds the legend names, in order

private:
    void updateLegend();
    QVBoxLayout *m_box;
    QList<GaugeBar *> m_gauges;
    QLabel *m_legend;
    QStringList m_kinds;
};
