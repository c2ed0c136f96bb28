#include "remotemachinesdialog.h"

#include "remotemachines.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

RemoteMachinesDialog::RemoteMachinesDialog(RemoteMachines *machines, QWidget *parent)
    : QDialog(parent), m_machines(machines)
{
    setWindowTitle(tr("Remote Machines"));
    resize(760, 380);
    auto *v = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Other computers can lend their GPUs (or their RAM) to this one: run "
                                "<code>shoehorn-cli rpc-worker</code> there and add its address here. Their devices "
                                "appear in the plan and the gauges like a local GPU as soon as it answers (a model "
                                "already loaded keeps its devices until it loads again). Double-click \"Use at "
                                "most\" to give a machine a limit in MiB: auto-fit then splits the layers so that it "
                                "stays within it."));
    intro->setWordWrap(true);
    v->addWidget(intro);
    auto *warning = new QLabel(tr("The worker's protocol has no password and no encryption: reach it through an "
                                  "SSH tunnel (then add 127.0.0.1:PORT), or only on a network you trust."));
    warning->setWordWrap(true);
    warning->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    v->addWidget(warning);

    auto *row = new QHBoxLayout;
    m_address = new QLineEdit;
    m_address->setObjectName(QStringLiteral("remoteAddress"));
    m_address->setPlaceholderText(tr("host:port, for example 192.168.1.20:50052"));
    row->addWidget(m_address, 1);
    auto *add = new QPushButton(tr("Add"));
    add->setObjectName(QStringLiteral("remoteAdd"));
    add->setDefault(true); // Return in the address field adds it
    row->addWidget(add);
    v->addLayout(row);
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("remoteMessage"));
    m_message->setWordWrap(true);
    v->addWidget(m_message);

    m_table = new QTableView;
    m_table->setModel(machines->model());
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(RemoteMachineModel::Devices, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(RemoteMachineModel::Address, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RemoteMachineModel::State, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RemoteMachineModel::RoundTrip, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(RemoteMachineModel::Limit, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    v->addWidget(m_table, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    auto *test = buttons->addButton(tr("Test Connection"), QDialogButtonBox::ActionRole);
    test->setObjectName(QStringLiteral("remoteTest"));
    auto *remove = buttons->addButton(tr("Remove"), QDialogButtonBox::ActionRole);
    remove->setObjectName(QStringLiteral("remoteRemove"));
    v->addWidget(buttons);

    connect(add, &QPushButton::clicked, this, &RemoteMachinesDialog::addMachine);
    connect(test, &QPushButton::clicked, this, [this] { m_machines->test(selectedRow()); });
    connect(remove, &QPushButton::clicked, this, [this] { m_machines->remove(selectedRow()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void RemoteMachinesDialog::addMachine()
{
    const QString address = m_address->text().trimmed();
    switch (m_machines->add(address)) {
    case RemoteMachines::AddResult::Added:
        m_message->clear();
        m_address->clear();
        break;
    case RemoteMachines::AddResult::NotAnAddress:
        m_message->setText(tr("Give the machine as host:port, for example 192.168.1.20:50052 (the port its rpc-worker "
                              "prints)."));
        break;
    case RemoteMachines::AddResult::AlreadyListed:
        m_message->setText(tr("%1 is in the list already.").arg(address));
        break;
    }
}

int RemoteMachinesDialog::selectedRow() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : rows.first().row();
}
