#pragma once

// What the offload panel's tests do to it, as a person would: pick a machine in "Plan for", open
// a model and wait until its GGUF has been read (in the background).
#include "appcore.h"
#include "loadedmodel.h"
#include "offloadcontroller.h"
#include "offloadpanel.h"

#include <QComboBox>
#include <QtTest>

namespace panelsteps {

// The panel on the real controllers, shown, as the window has it.
struct ShownPanel {
    AppCore cApp;
    LoadedModel &lm = *cApp.model();
    OffloadController plans{&lm, cApp.hardware(), cApp.api(), cApp.vision()};
    OffloadPanel panel{&plans, &lm, cApp.tuning()};
    ShownPanel() { panel.show(); }
};

inline void selectProfile(OffloadPanel &p, const QString &id)
{
    auto *target = p.findChild<QComboBox *>("planFor");
    target->setCurrentIndex(target->findData(id));
    QVERIFY(target->currentIndex() > 0);
}

// Auto-fit as the button does it, waiting for its result (it is worked out on the work pool).
inline void autoFit(OffloadPanel &p, OffloadController &c)
{
    p.autoFit();
    QVERIFY(c.fitting() || !c.info());
    QTRY_VERIFY_WITH_TIMEOUT(!c.fitting(), 20000);
}

[[nodiscard]] inline bool open(OffloadPanel &p, const QString &path)
{
    p.setModelPath(path);
    return QTest::qWaitFor([&] { return p.hasModelInfo(); }, 10000);
}

} // namespace panelsteps
