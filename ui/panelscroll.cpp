#include "panelscroll.h"

#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>

QScrollArea *PanelScroll::create(QWidget *content, QWidget *parent)
{
    auto *scroll = new QScrollArea(parent);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    new PanelScroll(scroll, content);
    return scroll;
}

PanelScroll::PanelScroll(QScrollArea *scroll, QWidget *content) : QObject(scroll), m_scroll(scroll), m_content(content)
{
    content->installEventFilter(this);
    keepWidth();
}

bool PanelScroll::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_content && (event->type() == QEvent::LayoutRequest || event->type() == QEvent::Show))
        keepWidth();
    return QObject::eventFilter(watched, event);
}

void PanelScroll::keepWidth()
{
    // Room for the vertical scroll bar too: it comes and goes with the height, the width stays.
    const int bar = m_scroll->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_scroll);
    const int width = m_content->minimumSizeHint().width() + bar + 2 * m_scroll->frameWidth();
    if (m_scroll->minimumWidth() != width)
        m_scroll->setMinimumWidth(width);
}
