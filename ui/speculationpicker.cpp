#include "speculationpicker.h"

#include "asyncdialogs.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QStandardItemModel>

using namespace shoehorn;

SpeculationPicker::SpeculationPicker(QWidget *parent) : QWidget(parent)
{
    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("speculation"));
    m_combo->addItems({tr("Off"), tr("Auto (as auto-tune measured)"), tr("MTP (the model's own draft layer)"),
                       tr("n-gram (repeats in the chat)"), tr("Draft model…")});
    m_combo->setItemData(Auto,
                         tr("What Auto-tune speed… measured fastest on this computer: off until it has, and off "
                            "where speculation was not faster than the run-to-run noise."),
                         Qt::ToolTipRole);
    m_combo->setToolTip(tr("Speculative decoding: guess several tokens ahead and let the model check them in "
                           "one step. Faster where the guesses are often right; it costs memory and can be "
                           "slower on a slow bus. The answer is the same."));
    m_draft = new QLabel(this);
    m_draft->setObjectName(QStringLiteral("draftModel"));
    // The file's name takes the room beside the list and no more: a long name widened the whole
    // panel (a scroll bar under it); the full path is the tooltip.
    m_draft->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_combo, 1);
    row->addWidget(m_draft, 1);
    m_chooser = [this](AsyncDialogs::PathDone done) {
        AsyncDialogs::openFile(this, tr("Draft model"), QFileInfo(m_draftPath).path(), tr("GGUF models (*.gguf)"),
                               std::move(done));
    };
    connect(m_combo, &QComboBox::currentIndexChanged, this, &SpeculationPicker::chosen);
    showDraft();
}

void SpeculationPicker::setModelHasMtp(bool has)
{
    auto *items = qobject_cast<QStandardItemModel *>(m_combo->model());
    if (QStandardItem *mtp = items ? items->item(Mtp) : nullptr) {
        mtp->setEnabled(has);
        mtp->setToolTip(has ? QString() : tr("This model file has no MTP layer (it was converted without it)."));
    }
}

SpeculationSettings SpeculationPicker::settings() const
{
    SpeculationSettings s;
    switch (choice()) {
    case Off:
    case Auto: break;
    case Mtp: s.types = "draft-mtp"; break;
    case NGram: s.types = "ngram-simple"; break;
    case DraftModel:
        s.types = "draft-simple";
        s.draftModel = m_draftPath.toStdString();
        break;
    }
    return s;
}

void SpeculationPicker::setSettings(const SpeculationSettings &s, bool automatic)
{
    m_updating = true;
    m_draftPath = QString::fromStdString(s.draftModel);
    Choice c = Off;
    if (automatic)
        c = Auto;
    else if (!m_draftPath.isEmpty())
        c = DraftModel;
    else if (s.mtp())
        c = Mtp;
    else if (s.on())
        c = NGram;
    m_combo->setCurrentIndex(c);
    m_last = c;
    showDraft();
    m_updating = false;
}

SpeculationPicker::Choice SpeculationPicker::choice() const
{
    return Choice(std::max(0, m_combo->currentIndex()));
}

void SpeculationPicker::chosen(int index)
{
    if (m_updating)
        return;
    if (index == DraftModel) {
        // The choice before stays until a file is chosen (and when the dialog is cancelled).
        {
            const QSignalBlocker block(m_combo);
            m_combo->setCurrentIndex(m_last);
        }
        if (m_chooser)
            m_chooser([self = QPointer<SpeculationPicker>(this)](const QString &path) {
                if (self && !path.isEmpty())
                    self->takeDraft(path);
            });
        return;
    }
    m_last = Choice(index);
    showDraft();
    emit edited();
}

void SpeculationPicker::takeDraft(const QString &path)
{
    m_draftPath = path;
    {
        const QSignalBlocker block(m_combo);
        m_combo->setCurrentIndex(DraftModel);
    }
    m_last = DraftModel;
    showDraft();
    emit edited();
}

void SpeculationPicker::showDraft()
{
    const bool draft = choice() == DraftModel && !m_draftPath.isEmpty();
    m_draft->setVisible(draft);
    m_draft->setText(draft ? QFileInfo(m_draftPath).fileName() : QString());
    m_draft->setToolTip(m_draftPath);
}
