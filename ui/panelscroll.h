#pragma once

#include <QObject>
#include <QScrollArea>

class QWidget;

// A dock panel's content scrolls up and down only: the scroll area is never narrower than what
// its content needs, so the dock cannot be squeezed (a narrow window, a window made small and
// large again) into one that cuts its controls and scrolls sideways. Follows the content's
// minimum width as its layout changes (Details opened, a longer translation).
class PanelScroll : public QObject
{
    Q_OBJECT
public:
    // A scroll area that holds `content`, resizable, without a frame; `parent` owns it.
    static QScrollArea *create(QWidget *content, QWidget *parent);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    PanelScroll(QScrollArea *scroll, QWidget *content);
    void keepWidth();
    QScrollArea *m_scroll;
    QWidget *m_content;
};
