#include "modelbrowser.h"

#include "asyncdialogs.h"
#include "modellibrary.h"

#include <QAction>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QTableView>
#include <QMenu>
#include <QPersistentModelIndex>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QHBoxLayout>
#include <QVBoxLayout>

namespace {
// Marks offered models ("new") and missing files, so the list says what each entry is, and the
// model being opened with its progress under its name.
class EntryDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QVariant loading = index.data(ModelLibrary::LoadingRole);
        if (index.column() != ModelLibrary::NameColumn || !loading.isValid())
            return;
        const QRect r = option.rect.adjusted(2, option.rect.height() - 4, -2, -1);
        painter->fillRect(r, option.palette.color(QPalette::Mid));
        painter->fillRect(QRect(r.left(), r.top(), int(r.width() * loading.toDouble()), r.height()),
                          option.palette.color(QPalette::Highlight));
    }

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        if (index.column() != ModelLibrary::NameColumn)
            return;
        if (!index.data(ModelLibrary::ExistsRole).toBool()) {
            option->text = ModelBrowser::tr("%1 (missing)").arg(option->text);
            option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
        } else if (index.data(ModelLibrary::LoadingRole).isValid()) {
            option->font.setBold(true);
        } else if (index.data(ModelLibrary::OfferedRole).toBool()) {
            option->text = ModelBrowser::tr("%1 (new)").arg(option->text);
            option->font.setBold(true);
        }
    }
};
} // namespace

ModelBrowser::ModelBrowser(ModelLibrary *library, QWidget *parent)
    : QDockWidget(tr("Models"), parent), m_library(library), m_view(new QTableView(this))
{
    setObjectName(QStringLiteral("modelBrowser"));
    // Shown again (its tab raised over the Chats list): it looks whether its files are still there.
    connect(this, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible)
            m_library->checkFiles();
    });
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(4, 4, 4, 4);
    m_view->setObjectName(QStringLiteral("modelList"));
    m_view->setModel(library);
    m_view->setItemDelegate(new EntryDelegate(m_view));
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    QHeaderView *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    // A long file name (Qwen3-30B-A3B-Instruct-2507-UD-Q4_K_XL.gguf) is cut in the middle, so
    // that its start and its quant show, and the Fit verdict follows it: the name's column pushed
    // every column after Architecture out of the docked list. The whole path is its tooltip.
    capColumns();
    m_view->setTextElideMode(Qt::ElideMiddle);
    header->moveSection(header->visualIndex(ModelLibrary::FitColumn), ModelLibrary::NameColumn + 1);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    layout->addWidget(m_view, 1);
    auto *buttons = new QHBoxLayout;
    auto *browse = new QPushButton(tr("Open a model file…"), body);
    auto *folder = new QPushButton(tr("Add a folder…"), body);
    folder->setObjectName(QStringLiteral("addFolderButton"));
    folder->setToolTip(tr("Shoehorn lists every GGUF model in the folder and its subfolders."));
    buttons->addWidget(browse);
    buttons->addWidget(folder);
    layout->addLayout(buttons);
    m_chooseFolder = [this](AsyncDialogs::PathDone done) {
        AsyncDialogs::chooseFolder(this, tr("Choose a folder with models"), std::move(done));
    };
    connect(folder, &QPushButton::clicked, this, [this] {
        m_chooseFolder([this](const QString &dir) {
            if (!dir.isEmpty())
                m_library->addFolder(dir);
        });
    });
    setWidget(body);
    // Rows come and go while the shown model stays (a load lists its file at the top, a scan
    // adds files, a failed load's row goes): its row is selected again.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(library, signal, this, &ModelBrowser::selectShown);
    connect(library, &QAbstractItemModel::rowsMoved, this, &ModelBrowser::selectShown);
    connect(library, &QAbstractItemModel::modelReset, this, &ModelBrowser::selectShown);

    // activated: double-click (or single click where the desktop wants it) and Enter.
    connect(m_view, &QTableView::activated, this, &ModelBrowser::activate);
    connect(browse, &QPushButton::clicked, this, &ModelBrowser::browseRequested);
    connect(m_view, &QTableView::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_view->indexAt(pos);
        if (!index.isValid())
            return;
        // A popup, not exec(): no nested event loop. The list may change while it is open (a
        // scan ends): the row is followed, and an entry that went is left alone.
        auto *menu = new QMenu(this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        const QPersistentModelIndex entry(index);
        menu->addAction(tr("Open"), this, [this, entry] {
            if (entry.isValid())
                activate(entry);
        });
        menu->addAction(tr("Remove from list"), this, [this, entry] {
            if (entry.isValid())
                m_library->remove(entry.row());
        });
        menu->popup(m_view->viewport()->mapToGlobal(pos));
    });
}

void ModelBrowser::showModel(const QString &path)
{
    m_shown = path;
    selectShown();
}

void ModelBrowser::selectShown()
{
    const int row = m_shown.isEmpty() ? -1 : m_library->indexOf(m_shown);
    if (row < 0) {
        m_view->clearSelection();
        return;
    }
    const QModelIndex at = m_library->index(row);
    if (m_view->currentIndex().row() != row || !m_view->selectionModel()->isRowSelected(row, {}))
        m_view->selectionModel()->setCurrentIndex(at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void ModelBrowser::capColumns()
{
    m_view->horizontalHeader()->setMaximumSectionSize(m_view->fontMetrics().horizontalAdvance(QLatin1Char('n')) * 36);
}

void ModelBrowser::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::FontChange) // the desktop's font changed: about 36 characters still
        capColumns();
    QDockWidget::changeEvent(event);
}

void ModelBrowser::activate(const QModelIndex &index)
{
    if (index.isValid())
        emit openRequested(m_library->pathAt(index.row()));
}
