#pragma once

#include "tuningstore.h"

#include <QDialog>

class LoadedModel;
class TuningController;
class QBarSet;
class QChart;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

// Auto-tune results: every measured configuration in a table and a chart (pp and tg, the
// current and the best highlighted), the tuning story step by step, and Apply best.
class TuningDialog : public QDialog
{
    Q_OBJECT
public:
    TuningDialog(LoadedModel *model, TuningController *tuning, QWidget *parent = nullptr);

    void setReport(const TuneReport &report);
    const TuneReport &report() const { return m_report; }
    // Test access.
    QTableWidget *resultsTable() const { return m_table; }
    QTableWidget *storyTable() const { return m_story; }
    QList<QBarSet *> barSets() const;

public slots:
    void run();
    void applyBest();

private:
    void onProgress(int done, int total, const QString &configuration);
    void onFinished(const TuneReport &report);
    void updateButtons();
    QString stepName(const std::string &name) const;

    LoadedModel *m_model;
    TuningController *m_tuning;
    TuneReport m_report;
    QLabel *m_status;
    QProgressBar *m_progress;
    QTableWidget *m_table;
    QTableWidget *m_story;
    QChart *m_chart;
    QPushButton *m_run;
    QPushButton *m_cancel;
    QPushButton *m_apply;
};
