#pragma once

#include <QWidget>

class ElidedLabel;
class QLabel;
class QToolButton;

// Under the offload gauges: one sentence of verdict ("Fits: …" / "Does not fit: … — press Auto-fit";
// it wraps rather than hide its end in a narrow dock), one line saying what checked the plan
// (llama.cpp's dry run, or the load; cut to the width, whole in its tooltip), and the full
// explanation one click away behind Details.
class PlanSummary : public QWidget
{
    Q_OBJECT
public:
    struct Texts {
        QString verdict;
        bool fits = true;
        QString verified;
        // Behind Details: the whole sentence about the plan (and pictures), the machine it is for,
        // RAM in its two parts, llama.cpp's dry run in full.
        QString explanation;
        QString machine;
        QString ramParts;
        QString exact;
    };
    explicit PlanSummary(QWidget *parent = nullptr);
    void show(const Texts &texts);
    const Texts &texts() const { return m_texts; }
    bool detailsShown() const;
    void setDetailsShown(bool shown);

private:
    Texts m_texts;
    QLabel *m_verdict;
    ElidedLabel *m_verified;
    QToolButton *m_toggle;
    QWidget *m_details;
    QLabel *m_explanation;
    QLabel *m_machine;
    QLabel *m_ramParts;
    QLabel *m_exact;
};
