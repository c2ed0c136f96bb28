#include "visionmenu.h"

#include "asyncdialogs.h"
#include "loadedmodel.h"
#include "errortext.h"
#include "visioncontroller.h"

#include <QActionGroup>
#include <QFileInfo>
#include <QPointer>

VisionMenu::VisionMenu(LoadedModel *model, VisionController *vision, QWidget *parent)
    : QMenu(parent), m_model(model), m_vision(vision)
{
    setObjectName(QStringLiteral("visionMenu"));
    setTitle(tr("&Vision Projector"));
    m_choose = [](QWidget *p, AsyncDialogs::PathDone done) {
        AsyncDialogs::openFile(p, tr("Choose a Vision Projector"), QString(),
                               tr("Vision projectors (mmproj*.gguf *.gguf)"), std::move(done));
    };
    connect(this, &QMenu::aboutToShow, this, &VisionMenu::rebuild);
    connect(vision, &VisionController::factsReady, this, [this] {
        if (isVisible())
            rebuild();
    });
}

void VisionMenu::rebuild()
{
    clear();
    if (!m_model->hasModel()) {
        addAction(tr("Load a model first"))->setEnabled(false);
        return;
    }
    VisionController *vision = m_vision;
    const VisionSummary &v = vision->vision();
    const ModelSettings s = m_model->modelSettings();
    QString state;
    if (v.ready)
        state = tr("Reads images with %1 (%2%3)")
                    .arg(QFileInfo(v.path).fileName(), v.precision, v.offload ? QString() : tr(", on the CPU"));
    else if (!v.path.isEmpty())
        state = tr("%1 could not be loaded: %2").arg(QFileInfo(v.path).fileName(), ErrorText::message(v.error));
    else
        state = tr("This model reads no images");
    addAction(state)->setEnabled(false);
    addSeparator();

    auto *group = new QActionGroup(this);
    // The files beside the model, as the vision controller found them on a pool thread (the
    // menu is built again when they are known).
    const auto facts = vision->facts(m_model->model().path, s.projector);
    const QList<VisionController::Candidate> candidates = facts ? facts->candidates : QList<VisionController::Candidate>{};
    auto choice = [this, vision, group](const QString &text, const QString &value, bool checked, bool enabled) {
        QAction *a = addAction(text);
        a->setCheckable(true);
        a->setChecked(checked);
        a->setEnabled(enabled);
        group->addAction(a);
        connect(a, &QAction::triggered, this, [this, vision, value] {
            vision->choose(value, m_model->modelSettings().projectorOffload);
        });
        return a;
    };
    // Projectors beside the model that are for another one are named so: "none beside the model"
    // above a greyed file beside it read as a contradiction.
    QString automatic = candidates.isEmpty() ? tr("Automatic: none beside the model")
                                             : tr("Automatic: none of the projectors beside the model fits it");
    for (const auto &c : candidates)
        if (!c.mismatch) {
            automatic = tr("Automatic: %1").arg(QFileInfo(c.path).fileName());
            break;
        }
    choice(automatic, QString(), s.projector.isEmpty(), true);
    for (const auto &c : candidates) {
        const QString name = QStringLiteral("%1 (%2)").arg(QFileInfo(c.path).fileName(), c.precision);
        QAction *a = choice(c.mismatch ? tr("%1: for another model").arg(name) : name, c.path, s.projector == c.path,
                            !c.mismatch);
        if (c.mismatch)
            a->setToolTip(ErrorText::message(c.mismatch));
    }
    const bool elsewhere = !s.projector.isEmpty() && s.projector != ModelSettings::kNoProjector &&
                           std::none_of(candidates.begin(), candidates.end(),
                                        [&](const auto &c) { return c.path == s.projector; });
    if (elsewhere)
        choice(QFileInfo(s.projector).fileName(), s.projector, true, true);
    choice(tr("None"), ModelSettings::kNoProjector, s.projector == ModelSettings::kNoProjector, true);
    addSeparator();
    addAction(tr("Choose File…"), this, [this, vision] {
        m_choose(parentWidget(), [model = QPointer<LoadedModel>(m_model), vision](const QString &path) {
            if (!path.isEmpty() && model)
                vision->choose(path, model->modelSettings().projectorOffload);
        });
    });
    QAction *cpu = addAction(tr("Keep the Projector on the CPU"));
    cpu->setObjectName(QStringLiteral("projectorOnCpu"));
    cpu->setCheckable(true);
    cpu->setChecked(!s.projectorOffload);
    cpu->setToolTip(tr("Like llama-server's --no-mmproj-offload: saves GPU memory, encodes images more slowly"));
    connect(cpu, &QAction::toggled, this, [this, vision](bool on) { vision->choose(m_model->modelSettings().projector, !on); });
}
