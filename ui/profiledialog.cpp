#include "profiledialog.h"

#include "planner.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSpinBox>

using namespace shoehorn;

ProfileDialog::ProfileDialog(QWidget *parent)
    : QDialog(parent), m_name(new QLineEdit(tr("My PC"), this)), m_vram(new QDoubleSpinBox(this)),
      m_ram(new QDoubleSpinBox(this)), m_cores(new QSpinBox(this))
{
    setWindowTitle(tr("Add a machine to plan for"));
    auto *form = new QFormLayout(this);
    m_vram->setRange(0, 512);
    m_vram->setValue(8);
    m_vram->setSuffix(tr(" GB"));
    m_ram->setRange(1, 4096);
    m_ram->setValue(32);
    m_ram->setSuffix(tr(" GB"));
    m_cores->setRange(1, 256);
    m_cores->setValue(8);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("GPU memory"), m_vram);
    form->addRow(tr("RAM"), m_ram);
    form->addRow(tr("Physical cores"), m_cores);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

HardwareProfile ProfileDialog::profile() const
{
    HardwareProfile p;
    p.name = m_name->text().trimmed().toStdString();
    if (p.name.empty())
        p.name = tr("Custom").toStdString();
    p.gpuName = p.name;
    p.vramBytes = quint64(m_vram->value() * double(GiB));
    p.ramBytes = quint64(m_ram->value() * double(GiB));
    p.physicalCores = m_cores->value();
    return p;
}

void ProfileDialog::ask(QWidget *parent, std::function<void(const HardwareProfile &)> done)
{
    auto *dialog = new ProfileDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, dialog, [dialog, done = std::move(done)] { done(dialog->profile()); });
    dialog->open();
}
