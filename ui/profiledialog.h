#pragma once

#include "hardware.h"

#include <QDialog>

#include <functional>

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
    // Shows the dialog (window-modal, no nested event loop) and calls `done` when the user
    // accepts it; nothing when they cancel.
    static void ask(QWidget *parent, std::function<void(const shoehorn::HardwareProfile &)> done);

private:
    QLineEdit *m_name;
    QDoubleSpinBox *m_vram;
    QDoubleSpinBox *m_ram;
    QSpinBox *m_cores;
};
