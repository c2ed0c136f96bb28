#include "modelbrowser.h"

#include "modellibrary.h"

#include <QAction>
#include <QListView>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QVBoxLayout>

namespace {
// Marks offered models ("new") and missing files, so the list says what each entry is.
class EntryDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (!index.data(ModelLibrary::ExistsRole).toBool()) {
            option->text = ModelBrowser::tr("%1 (missing)").arg(option->text);
            option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
        } else if (index.data(ModelLibrary::OfferedRole).toBool()) {
            option->text = ModelBrowser::tr("%1 (new)").arg(option->text);
            option->font.setBold(true);
        }
    }
};
} // namespace

ModelBrowser::ModelBrowser(ModelLibrary *library, QWidget *parent)
    : QDockWidget(tr("Models"), parent), m_library(library), m_view(new QListView(this))
{
    setObjectName(QStringLiteral("modelBrowser"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_view->setObjectName(QStringLiteral("modelList"));
    m_view->setModel(library);
    m_view->setItemDelegate(new EntryDelegate(m_view));
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    layout->addWidget(m_view, 1);
    auto *browse = new QPushButton(tr("Open a model file…"), body);
    layout->addWidget(browse);
    setWidget(body);

    connect(m_view, &QListView::activated, this, &ModelBrowser::activate);
    connect(m_view, &QListView::doubleClicked, this, &ModelBrowser::activate);
    connect(browse, &QPushButton::clicked, this, &ModelBrowser::browseRequested);
    connect(m_view, &QListView::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid())
            return;
        QMenu menu(this);
        menu.addAction(tr("Open"), this, [this, index] { activate(index); });
        menu.addAction(tr("Remove from list"), this, [this, row = index.row()] { m_library->remove(row); });
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
}

void ModelBrowser::activate(const QModelIndex &index)
{
    if (index.isValid())
        emit openRequested(m_library->pathAt(index.row()));
}
