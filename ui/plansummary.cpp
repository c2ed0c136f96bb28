#include "plansummary.h"

#include "elidedlabel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace {
QLabel *detailLabel(QWidget *parent, const QString &name)
{
    auto *l = new QLabel(parent);
    l->setObjectName(name);
    l->setWordWrap(true);
    l->setTextFormat(Qt::PlainText); // names of files and machines are the user's
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}
} // namespace

PlanSummary::PlanSummary(QWidget *parent)
    : QWidget(parent), m_verdict(new QLabel(this)), m_verified(new ElidedLabel(this)),
      m_toggle(new QToolButton(this)), m_details(new QWidget(this))
{
    auto *box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    m_verdict->setObjectName(QStringLiteral("fitVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextFormat(Qt::PlainText);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    box->addWidget(m_verdict);
    m_verified->setObjectName(QStringLiteral("verifiedLine"));
    m_verified->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
    box->addWidget(m_verified);
    auto *row = new QHBoxLayout;
    m_toggle->setObjectName(QStringLiteral("planDetailsButton"));
    m_toggle->setText(tr("Details"));
    m_toggle->setToolTip(tr("The whole explanation: what the plan does and why, this machine, RAM in its two "
                            "parts, llama.cpp's dry run."));
    m_toggle->setCheckable(true);
    m_toggle->setAutoRaise(true);
    m_toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toggle->setArrowType(Qt::RightArrow);
    row->addWidget(m_toggle);
    row->addStretch(1);
    box->addLayout(row);
    auto *details = new QVBoxLayout(m_details);
    details->setContentsMargins(0, 0, 0, 0);
    m_explanation = detailLabel(m_details, QStringLiteral("fitExplanation"));
    m_machine = detailLabel(m_details, QStringLiteral("hardwareLabel"));
    m_ramParts = detailLabel(m_details, QStringLiteral("ramParts"));
    m_exact = detailLabel(m_details, QStringLiteral("exactCheck"));
    for (QLabel *l : {m_explanation, m_machine, m_ramParts, m_exact})
        details->addWidget(l);
    m_details->hide();
    box->addWidget(m_details);
    connect(m_toggle, &QToolButton::toggled, this, &PlanSummary::setDetailsShown);
}

void PlanSummary::show(const Texts &t)
{
    m_texts = t;
    m_verdict->setText(t.verdict);
    m_verdict->setStyleSheet(t.fits ? QString() : QStringLiteral("color: #dc2626;"));
    m_verified->setFullText(t.verified);
    const std::pair<QLabel *, QString> parts[] = {
        {m_explanation, t.explanation}, {m_machine, t.machine}, {m_ramParts, t.ramParts}, {m_exact, t.exact}};
    for (const auto &[label, text] : parts) {
        label->setText(text);
        label->setVisible(!text.isEmpty());
    }
    m_explanation->setVisible(t.explanation != t.verdict); // not the same sentence twice
}

bool PlanSummary::detailsShown() const
{
    return m_toggle->isChecked();
}

void PlanSummary::setDetailsShown(bool shown)
{
    m_toggle->setChecked(shown);
    m_toggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    m_details->setVisible(shown);
}
