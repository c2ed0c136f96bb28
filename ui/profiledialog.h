#pragma once

#include "hardware.h"

#include <QDialog>

#include <optional>

class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

// Asks for a what-if machine to plan for: a name, GPU memory, RAM and cores.
class ProfileDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ProfileDialog(QWidget *parent = nullptr);
    shoehorn::HardwareProfile profile() const;
    // Shows the dialog; nothing when the user cancels.
    static std::optional<shoehorn::HardwareProfile> ask(QWidget *parent);

private:
    QLineEdit *m_name;
    QDoubleSpinBox *m_vram;
    QDoubleSpinBox *m_ram;
    QSpinBox *m_cores;
};
