#include "loadstrip.h"

#include "elidedlabel.h"

#include "errortext.h"
#include "loadedmodel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

LoadStrip::LoadStrip(LoadedModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_label(new ElidedLabel(this)), m_bar(new QProgressBar(this))
{
    setObjectName(QStringLiteral("loadStrip"));
    auto *row = new QHBoxLayout(this);
    m_label->setObjectName(QStringLiteral("loadLabel"));
    m_bar->setRange(0, 1000);
    m_bar->setTextVisible(false);
    // Its size hint is a text's width: the strip must fit whatever width the window has, or
    // showing it would widen the window at every load (and repaint it anew, 8-20 ms).
    m_bar->setMinimumWidth(fontMetrics().averageCharWidth() * 4);
    auto *cancel = new QPushButton(tr("Cancel"), this);
    cancel->setObjectName(QStringLiteral("cancelLoadButton"));
    connect(cancel, &QPushButton::clicked, m_model, &LoadedModel::cancelLoad);
    row->addWidget(m_label);
    row->addWidget(m_bar, 1);
    row->addWidget(cancel);
    connect(m_model, &LoadedModel::stateChanged, this, &LoadStrip::onStateChanged);
    connect(m_model, &LoadedModel::loadProgress, this, &LoadStrip::onProgress);
    connect(m_model, &LoadedModel::loadRetrying, this, [this](const shoehorn::OomRetry &r) {
        m_label->setFullText(ErrorText::retry(r));
        m_retries << ErrorText::retry(r);
    });
    connect(m_model, &LoadedModel::loadFailed, this, [this] { m_retries.clear(); });
    onStateChanged();
}

QString LoadStrip::takeRetry()
{
    const QString last = m_retries.isEmpty() ? QString() : m_retries.last();
    m_retries.clear();
    return last;
}

void LoadStrip::onStateChanged()
{
    const bool loading = m_model->state() == LoadedModel::State::Loading;
    setVisible(loading);
    if (!loading)
        return;
    m_bar->setValue(0);
    m_timer.start();
    m_label->setFullText(tr("Loading %1…").arg(QFileInfo(m_model->loadingPath()).fileName()));
}

void LoadStrip::onProgress(double fraction)
{
    m_bar->setValue(int(fraction * 1000));
    const qint64 ms = m_timer.isValid() ? m_timer.elapsed() : 0;
    const QString name = QFileInfo(m_model->loadingPath()).fileName();
    // The time left from the rate so far, once there is a rate to speak of.
    if (fraction > 0.02 && fraction < 1.0 && ms > 1000) {
        const int left = int(double(ms) * (1.0 - fraction) / fraction / 1000.0 + 0.5);
        m_label->setFullText(tr("Loading %1… %2% · about %3 s left").arg(name).arg(int(fraction * 100)).arg(left));
    }
}
