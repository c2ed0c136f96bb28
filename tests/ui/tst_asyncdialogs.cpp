// AsyncDialogs: each call returns at once with its dialog open window-modal (no nested event
// loop), answers through its callback when the user has chosen, and not at all when the
// parent went first.
#include "asyncdialogs.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QPointer>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

class TestAsyncDialogs : public QObject
{
    Q_OBJECT
private slots:
    void init();
    void cleanup();
    void fileDialogs_data();
    void fileDialogs();
    void askYesNo_data();
    void askYesNo();
    void textOnlyWhenAccepted();
    void messageWaitsForNothing();
    void parentGoneFirst();

private:
    template <typename D>
    D *openDialog() const
    {
        D *d = m_parent->findChild<D *>();
        return d && d->isVisible() && d->windowModality() == Qt::WindowModal ? d : nullptr;
    }
    QPointer<QWidget> m_parent;
    QTemporaryDir m_dir;
};

void TestAsyncDialogs::init()
{
    m_parent = new QWidget;
    m_parent->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_parent));
}

void TestAsyncDialogs::cleanup()
{
    delete m_parent;
}

void TestAsyncDialogs::fileDialogs_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("accept");
    for (const char *kind : {"open", "save", "folder", "files"}) {
        QTest::addRow("%s, chosen", kind) << kind << true;
        QTest::addRow("%s, cancelled", kind) << kind << false;
    }
}

void TestAsyncDialogs::fileDialogs()
{
    QFETCH(QString, kind);
    QFETCH(bool, accept);
    const QString file = m_dir.filePath("model.gguf");
    QFile(file).open(QIODevice::WriteOnly);
    std::optional<QStringList> answer;
    const auto one = [&answer](const QString &p) { answer = p.isEmpty() ? QStringList() : QStringList{p}; };
    if (kind == "open")
        AsyncDialogs::openFile(m_parent, "Open", m_dir.path(), "GGUF (*.gguf)", one);
    else if (kind == "save")
        AsyncDialogs::saveFile(m_parent, "Save", file, "GGUF (*.gguf)", one);
    else if (kind == "folder")
        AsyncDialogs::chooseFolder(m_parent, "Folder", one);
    else
        AsyncDialogs::openFiles(m_parent, "Files", "GGUF (*.gguf)", [&answer](const QStringList &p) { answer = p; });
    // Returned at once: the dialog is open and nothing has answered yet.
    QFileDialog *d = openDialog<QFileDialog>();
    QVERIFY(d);
    QVERIFY(!answer);
    if (accept) {
        // (Saving over an existing file would ask first: a new name.)
        const QString chosen = kind == "folder" ? m_dir.path() : kind == "save" ? m_dir.filePath("new.gguf") : file;
        if (kind != "save")
            d->setDirectory(kind == "folder" ? QFileInfo(m_dir.path()).path() : m_dir.path());
        d->selectFile(chosen);
        static_cast<QDialog *>(d)->accept(); // QFileDialog's own accept() checks the choice
        QTRY_VERIFY(answer);
        QCOMPARE(answer->size(), 1);
        QCOMPARE(QFileInfo(answer->front()).absoluteFilePath(), QFileInfo(chosen).absoluteFilePath());
    } else {
        d->reject();
        QTRY_VERIFY(answer);
        QVERIFY(answer->isEmpty());
    }
    QTRY_VERIFY(!m_parent->findChild<QFileDialog *>()); // deleted when closed
}

void TestAsyncDialogs::askYesNo_data()
{
    QTest::addColumn<int>("button");
    QTest::addColumn<bool>("yes");
    QTest::newRow("Yes") << int(QMessageBox::Yes) << true;
    QTest::newRow("No") << int(QMessageBox::No) << false;
}

void TestAsyncDialogs::askYesNo()
{
    QFETCH(int, button);
    QFETCH(bool, yes);
    std::optional<bool> answer;
    AsyncDialogs::ask(m_parent, "Quit?", "The answer does not stop.", [&answer](bool y) { answer = y; });
    QMessageBox *box = openDialog<QMessageBox>();
    QVERIFY(box);
    QVERIFY(!answer);
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::No));
    box->button(QMessageBox::StandardButton(button))->click();
    QTRY_VERIFY(answer);
    QCOMPARE(*answer, yes);
}

void TestAsyncDialogs::textOnlyWhenAccepted()
{
    QStringList answers;
    AsyncDialogs::text(m_parent, "Rename chat", "Title", "old", [&answers](const QString &t) { answers << t; });
    QInputDialog *d = openDialog<QInputDialog>();
    QVERIFY(d);
    QCOMPARE(d->textValue(), QString("old"));
    d->reject();
    QTRY_VERIFY(!m_parent->findChild<QInputDialog *>());
    QVERIFY(answers.isEmpty()); // cancelled: not called
    AsyncDialogs::text(m_parent, "Rename chat", "Title", "old", [&answers](const QString &t) { answers << t; });
    d = openDialog<QInputDialog>();
    QVERIFY(d);
    d->setTextValue("new");
    d->accept();
    QTRY_COMPARE(answers, QStringList{"new"});
}

void TestAsyncDialogs::messageWaitsForNothing()
{
    AsyncDialogs::message(m_parent, QMessageBox::Warning, "Cannot open", "The file is gone.");
    QMessageBox *box = openDialog<QMessageBox>();
    QVERIFY(box);
    QCOMPARE(box->text(), QString("The file is gone."));
    QCOMPARE(box->icon(), QMessageBox::Warning);
    box->button(QMessageBox::Ok)->click();
    QTRY_VERIFY(!m_parent->findChild<QMessageBox *>());
}

void TestAsyncDialogs::parentGoneFirst()
{
    bool called = false;
    AsyncDialogs::openFile(m_parent, "Open", m_dir.path(), "*", [&called](const QString &) { called = true; });
    AsyncDialogs::ask(m_parent, "Quit?", "?", [&called](bool) { called = true; });
    QVERIFY(openDialog<QFileDialog>());
    delete m_parent; // the window closes with its dialogs open
    QTest::qWait(50);
    QVERIFY(!called);
}

QTEST_MAIN(TestAsyncDialogs)
#include "tst_asyncdialogs.moc"
