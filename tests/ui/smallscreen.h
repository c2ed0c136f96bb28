#pragma once

// A budget laptop's screen: 1366x768 less a panel and a title bar. The window shown at that size
// with a MoE model of the real size loaded (by a FakeWorker) must need no scrolling in the offload
// panel and show its buttons, the message box and Send. Shared by the English and Chinese tests.
#include "chatcontroller.h"
#include "mainwindow.h"
#include "offloadpanel.h"
#include "testfixtures.h"

#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QtTest>

namespace SmallScreen {

inline const QSize kScreen(1366, 700);

// Empty when everything fits; else what does not.
inline QString check(MainWindow &w, LoadedModel &c)
{
    w.fitInto(QRect(QPoint(0, 0), kScreen));
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return QStringLiteral("the window was not shown");
    const QSize min = w.minimumSizeHint();
    if (min.width() > kScreen.width() || min.height() > kScreen.height())
        return QStringLiteral("minimum size %1x%2").arg(min.width()).arg(min.height());
    if (w.size() != kScreen)
        return QStringLiteral("the window is %1x%2").arg(w.width()).arg(w.height());
    QSignalSpy loaded(&c, &LoadedModel::modelLoaded);
    c.openModel(TestFixtures::instance().qwen3_30b());
    OffloadPanel *panel = w.offloadPanel();
    const bool ready = QTest::qWaitFor(
        [&] { return loaded.count() == 1 && panel->hasModelInfo() && panel->findChild<QSlider *>("cpuMoe")->isVisible(); },
        10000);
    if (!ready)
        return QStringLiteral("the model did not open");
    QTest::qWait(50); // layouts settle
    auto *scroll = panel->findChild<QScrollArea *>();
    if (scroll->verticalScrollBar()->isVisible() || scroll->horizontalScrollBar()->isVisible())
        return QStringLiteral("the panel scrolls: %1x%2 to show in %3x%4")
            .arg(scroll->widget()->sizeHint().width())
            .arg(scroll->widget()->sizeHint().height())
            .arg(scroll->viewport()->width())
            .arg(scroll->viewport()->height());
    auto inside = [](QWidget *child, QWidget *area) {
        const QRect r(child->mapTo(area, QPoint(0, 0)), child->size());
        return child->isVisible() && area->rect().contains(r);
    };
    for (const char *name : {"autoFitButton", "loadButton", "autoTuneButton", "copyCommandButton", "fitVerdict"})
        if (!inside(panel->findChild<QWidget *>(name), scroll->viewport()))
            return QStringLiteral("%1 is not visible").arg(name);
    for (const char *name : {"sendButton", "messageInput"})
        if (!inside(w.findChild<QWidget *>(name), &w))
            return QStringLiteral("%1 is not visible").arg(name);
    return {};
}

} // namespace SmallScreen
