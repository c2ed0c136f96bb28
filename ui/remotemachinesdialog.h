#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QTableView;
class RemoteMachines;

// Model > Remote Machines…: other machines whose devices (GPUs, or RAM) Shoehorn may use, through
// llama.cpp's RPC workers (`shoehorn-cli rpc-worker` there). Add by host:port, remove, test the
// connection (devices, free memory, round trip). The list is remembered and used from the next
// start.
class RemoteMachinesDialog : public QDialog
{
    Q_OBJECT
public:
    explicit RemoteMachinesDialog(RemoteMachines *machines, QWidget *parent = nullptr);

    QLineEdit *addressField() const { return m_address; }
    QTableView *table() const { return m_table; }

private:
    void addMachine();
    int selectedRow() const;

    RemoteMachines *m_machines;
    QLineEdit *m_address = nullptr;
    QLabel *m_message = nullptr;
    QTableView *m_table = nullptr;
};
