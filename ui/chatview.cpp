#include "chatview.h"
#include "chatthumbnails.h"
#include "imagefit.h"
#include "chatview_p.h"

#include "chatmodel.h"
#include "messagewriter.h"

#include <QBuffer>
#include <QDesktopServices>
#include <QImage>
#include <QImageReader>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextFrame>

#include <utility>

namespace {
constexpr int kThumbnail = 120; // pixels, the longer side of an image in a message

bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}
} // namespace

ChatView::ChatView(QWidget *parent)
    : QTextBrowser(parent),
      m_code(new CodeBlocks(
          [this](QTextFrame *frame, const CodeHighlighter::Result &result, MessageWriter::Colouring &state,
                 const QDeadlineTimer &deadline) {
              QScrollBar *bar = verticalScrollBar();
              const bool follow = bar->value() >= bar->maximum() - 4;
              const bool done = m_writer->colour(frame, result, state, deadline);
              followIfAtBottom(follow);
              return done;
          },
          [this](QTextFrame *frame, const QString &text) {
              QScrollBar *bar = verticalScrollBar();
              const bool follow = bar->value() >= bar->maximum() - 4;
              QTextCursor c(document());
              c.setPosition(frame->lastPosition());
              m_writer->appendCode(c, text);
              followIfAtBottom(follow);
          },
          this))
{
    setOpenLinks(false);
    setReadOnly(true);
    document()->setDocumentMargin(12);
    document()->setUndoRedoEnabled(false);
    m_writer = std::make_unique<MessageWriter>(palette(), font());
    m_code->setDarkTheme(isDark(palette()));
    m_openUrl = [](const QUrl &url) { QDesktopServices::openUrl(url); };
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) { activate(url.toString()); });
    connect(m_code, &CodeBlocks::coloured, this, &ChatView::codeHighlighted);
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this] {
        if (!m_bottomWhenShown || !isVisible())
            return; // while streaming: nothing posted per change of the range
        // Queued: QTextEdit sets its scroll position after it changes the range.
        QMetaObject::invokeMethod(this, [this] {
            if (m_bottomWhenShown)
                verticalScrollBar()->setValue(verticalScrollBar()->maximum());
        }, Qt::QueuedConnection);
    });
    connect(verticalScrollBar(), &QAbstractSlider::actionTriggered, this, [this] { m_bottomWhenShown = false; });
    m_nextSlice.setSingleShot(true);
    m_nextSlice.setInterval(0);
    connect(&m_nextSlice, &QTimer::timeout, this, [this] {
        m_sliceOpen = false;
        if (!isComplete())
            catchUp();
        else if (!updatesEnabled()) // rows waiting to be written were removed meanwhile
            setUpdatesEnabled(true);
    });
    // shoehorn-image://KEY/i: still shown while its message is
    m_thumbnails = new ChatThumbnails(
        document(), [this](const QString &name) { return rowOfKey(name.section(QLatin1Char('/'), 2, 2).toInt()) >= 0; },
        this);
    connect(m_thumbnails, &ChatThumbnails::shown, this, [this](const QString &name) {
        viewport()->update();
        emit thumbnailShown(name);
    });
}

ChatView::~ChatView() = default;

void ChatView::setChatModel(ChatModel *model)
{
    m_model = model;
    connect(model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &, int first, int last) {
        for (int r = first; r <= last; ++r)
            insertRow(r);
    });
    connect(model, &QAbstractItemModel::modelReset, this, &ChatView::rebuild);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &ChatView::onRowsRemoved);
    connect(model, &QAbstractItemModel::dataChanged, this, &ChatView::onDataChanged);
    rebuild();
}

void ChatView::changeEvent(QEvent *event)
{
    QTextBrowser::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        // Light and dark follow the system: restyle and lay the chat out again.
        m_writer = std::make_unique<MessageWriter>(palette(), font());
        m_code->setDarkTheme(isDark(palette()));
        if (m_model)
            rebuild();
    }
}

QString ChatView::roleTitle(ChatModel::Author author) const
{
    switch (author) {
    case ChatModel::Author::User: return tr("You");
    case ChatModel::Author::Assistant: return tr("Assistant");
    case ChatModel::Author::System: break;
    }
    return tr("System");
}

void ChatView::rebuild()
{
    clear();
    // The empty paragraph a document starts with, before the first message frame: no gap.
    QTextCursor first(document());
    QTextBlockFormat thin;
    thin.setLineHeight(1, QTextBlockFormat::FixedHeight);
    first.setBlockFormat(thin);
    m_rendered.clear();
    m_code->clear();
    m_thumbnails->forgetNames();
    catchUp();
}

bool ChatView::isComplete() const
{
    // Only the last row written can have blocks waiting (catchUp finishes them first).
    return !m_model || (m_rendered.size() >= m_model->rowCount() &&
                        (m_rendered.isEmpty() || m_rendered.constLast().pending.isEmpty()));
}

void ChatView::openSlice()
{
    if (!m_sliceOpen) { // the slice ends when the event loop gets its turn
        m_slice.start();
        m_sliceOpen = true;
        m_nextSlice.start();
    }
}

void ChatView::catchUp()
{
    openSlice();
    while (!isComplete() && m_slice.elapsed() < kSliceMs) {
        if (!m_rendered.isEmpty() && !m_rendered.constLast().pending.isEmpty())
            resumeRow(int(m_rendered.size()) - 1);
        else
            appendRow(int(m_rendered.size()));
    }
    // Painted once it is all there: each slice's repaint of the growing document at its end cost
    // as much as the slice (5-10 ms). The window meanwhile shows what it showed, and answers.
    if (updatesEnabled() == !isComplete())
        setUpdatesEnabled(isComplete());
}

QTextCursor ChatView::frameEnd(const Rendered &r) const
{
    QTextCursor c(document());
    c.setPosition(r.frame->lastPosition());
    return c;
}

void ChatView::followIfAtBottom(bool follow)
{
    if (!follow)
        return;
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    // Written before the window is shown (a chat imported at start): its height is known only
    // when it is laid out on screen, and the bottom is shown then (the scroll range's changes).
    m_bottomWhenShown = !isVisible();
}

void ChatView::insertRow(int row)
{
    if (row < m_rendered.size()) { // only appends happen while chatting
        rebuild();
        return;
    }
    catchUp(); // this one, after those still waiting
}

void ChatView::appendRow(int row)
{
    QScrollBar *bar = verticalScrollBar();
    const bool follow = bar->value() >= bar->maximum() - 4;
    // The message before loses its "Regenerate" link: only the last answer has one.
    if (row > 0 && m_rendered[row - 1].finished) {
        removeFooter(m_rendered[row - 1]);
        writeFooter(row - 1);
    }
    QTextCursor c(document());
    c.movePosition(QTextCursor::End);
    const bool user = m_model->message(row).author == ChatModel::Author::User;
    QTextFrameFormat ff;
    ff.setPadding(8);
    ff.setBottomMargin(6);
    if (user)
        ff.setBackground(palette().color(QPalette::AlternateBase));
    Rendered r;
    r.key = m_nextKey++;
    r.frame = c.insertFrame(ff);
    m_rendered.append(r);
    {
        const QScopedValueRollback firstWrite(m_firstWrite, true);
        renderRow(row);
    }
    followIfAtBottom(follow);
}

// Goes on with the blocks of a message whose first write used up its slice, then its end.
void ChatView::resumeRow(int row)
{
    QScrollBar *bar = verticalScrollBar();
    const bool follow = bar->value() >= bar->maximum() - 4;
    const QScopedValueRollback firstWrite(m_firstWrite, true);
    writeSegments(row, std::exchange(m_rendered[row].pending, {}));
    if (m_rendered[row].pending.isEmpty())
        stream(row); // nothing new to split: the tail, or the footer of a finished message
    followIfAtBottom(follow);
}

// A message on screen written again, in one edit of the document: Qt lays it out once at the
// end instead of after each insert (a 400-line code block: 12 ms in pieces, 5 ms in one edit).
// One whose first write has not ended starts that again, its inserts timed against the slice.
void ChatView::relayoutRow(int row)
{
    if (!m_rendered[row].pending.isEmpty()) {
        // Still being written for the first time: again from the start, slice by slice.
        openSlice();
        const QScopedValueRollback firstWrite(m_firstWrite, true);
        renderRow(row);
        return;
    }
    const QScopedValueRollback wholeWrite(m_firstWrite, false); // not cut by a slice's end
    QTextCursor edit(document());
    edit.beginEditBlock();
    renderRow(row);
    edit.endEditBlock();
}

// Writes a message from scratch into its (emptied) frame.
void ChatView::renderRow(int row)
{
    Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    QTextCursor c(document());
    c.setPosition(r.frame->firstPosition());
    c.setPosition(r.frame->lastPosition(), QTextCursor::KeepAnchor);
    c.removeSelectedText();
    const bool open = r.thinkingOpen;
    const int key = r.key;
    const QPointer<QTextFrame> frame = r.frame;
    r = Rendered{};
    r.key = key;
    r.frame = frame;
    r.thinkingOpen = open;

    c.setPosition(r.frame->firstPosition());
    c.insertText(roleTitle(m.author), m_writer->titleFormat());
    if (!m.images.isEmpty())
        writeImages(row, c);
    if (!m.reasoning.isEmpty())
        writeThinkingHeader(row, c);
    stream(row);
}

// The message's images as thumbnails in a row of their own; each links to the full image. The
// size comes from the picture's header; the thumbnail replaces a plain tile when it is made
// (ChatThumbnails, off the GUI thread).
void ChatView::writeImages(int row, QTextCursor &c)
{
    const Rendered &r = m_rendered[row];
    const auto &m = m_model->message(row);
    MessageWriter::newBlock(c);
    for (int i = 0; i < m.images.size(); ++i) {
        const QString name = QStringLiteral("shoehorn-image://%1/%2").arg(r.key).arg(i);
        QByteArray data = m.images[i].data;
        QBuffer buffer(&data);
        QImageReader header(&buffer);
        const QSize full = header.size();
        const QSize box(kThumbnail, kThumbnail);
        const QSize shown = full.isValid() ? fitWithin(full, box) : box;
        m_thumbnails->show(name, data, shown, palette().color(QPalette::Midlight));
        QTextImageFormat f;
        f.setName(name);
        f.setWidth(shown.width());
        f.setHeight(shown.height());
        f.setAnchor(true);
        f.setAnchorHref(QStringLiteral("image:%1:%2").arg(r.key).arg(i));
        // No size before its bytes are read from the history (or when the header cannot be read).
        f.setToolTip(full.isValid() ? tr("Image %1 of %2, %3 × %4 pixels. Click to view.")
                                          .arg(i + 1)
                                          .arg(m.images.size())
                                          .arg(full.width())
                                          .arg(full.height())
                                    : tr("Image %1 of %2. Click to view.").arg(i + 1).arg(m.images.size()));
        c.insertImage(f);
        c.insertText(QStringLiteral(" "));
    }
}

void ChatView::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    // Pictures read from the history after the row was written (ChatController::onPicturesRead)
    // change its first lines: laid out again.
    const bool streaming =
        !roles.isEmpty() && !roles.contains(ChatModel::VersionRole) && !roles.contains(ChatModel::ImagesRole);
    for (int row = topLeft.row(); row <= bottomRight.row() && row < m_rendered.size(); ++row) {
        QScrollBar *bar = verticalScrollBar();
        const bool follow = bar->value() >= bar->maximum() - 4;
        if (streaming && !m_rendered[row].finished) {
            if (!m_rendered[row].pending.isEmpty()) // its first write had not ended: that first
                writeSegments(row, std::exchange(m_rendered[row].pending, {}));
            stream(row); // new text, or the answer ended: append
        } else {
            relayoutRow(row); // edited, another version, or restyled
        }
        followIfAtBottom(follow);
    }
}

void ChatView::onRowsRemoved(const QModelIndex &, int first, int last)
{
    for (int row = std::min(last, int(m_rendered.size()) - 1); row >= first; --row) { // not all written yet
        const Rendered &r = m_rendered[row];
        if (r.frame) {
            QTextCursor c(document());
            c.setPosition(r.frame->firstPosition() - 1);
            c.setPosition(r.frame->lastPosition() + 1, QTextCursor::KeepAnchor);
            c.removeSelectedText();
        }
        m_rendered.removeAt(row);
    }
    // The new last answer gets its Regenerate link back.
    const int lastRow = int(m_rendered.size()) - 1;
    if (lastRow >= 0 && m_rendered[lastRow].finished) {
        removeFooter(m_rendered[lastRow]);
        writeFooter(lastRow);
    }
}

int ChatView::codeBlockCount() const
{
    return m_code->count();
}

QString ChatView::codeBlockText(int index) const
{
    return m_code->text(index);
}

bool ChatView::codeBlockHighlighted(int index) const
{
    return m_code->highlighted(index);
}

QTextFrame *ChatView::codeBlockFrame(int index) const
{
    return m_code->frame(index);
}
