#include "backendpicker.h"

BackendPicker::BackendPicker(QWidget *parent) : QComboBox(parent)
{
    setObjectName(QStringLiteral("gpuBackend"));
    setToolTip(tr("This card is seen by two backends. Shoehorn uses the first, as llama.cpp does; the other "
                  "one can be faster for some cards and models (Auto-tune speed… measures both)."));
    connect(this, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (m_updating || index < 0)
            return;
        m_wanted = backend();
        emit edited();
    });
}

void BackendPicker::setChoices(const QList<Choice> &choices)
{
    m_updating = true;
    clear();
    for (int i = 0; i < choices.size(); ++i) {
        const Choice &c = choices[i];
        addItem(i == 0 ? tr("%1 (default)").arg(c.backend) : c.backend, i == 0 ? QString() : c.backend);
        setItemData(i, tr("The model runs on: %1").arg(c.devices.join(QStringLiteral(", "))), Qt::ToolTipRole);
    }
    const int at = findData(m_wanted);
    setCurrentIndex(at >= 0 ? at : 0);
    m_updating = false;
}

QString BackendPicker::backend() const
{
    return currentIndex() >= 0 ? currentData().toString() : m_wanted;
}

void BackendPicker::setBackend(const QString &backend)
{
    m_wanted = backend;
    m_updating = true;
    const int at = findData(backend);
    if (at >= 0)
        setCurrentIndex(at);
    m_updating = false;
}
