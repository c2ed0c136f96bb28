// The model file's pages after an mmap load (internal/filepages): the copied weights' pages
// leave the mapping, and leave the page cache when free memory could not hold them.
#include "filepages.h"
#include "hardware.h"
#include "llamahandles.h"
#include "model.h"
#include "planner.h"
#include "testfixtures.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace shoehorn;
using internal::PageCacheDrop;

class TestFilePages : public QObject
{
    Q_OBJECT
private slots:
    void memoryIsTight_data();
    void memoryIsTight();
    void pageCache_data();
    void pageCache();
    void anotherModelOfTheFileKeepsItsPages();
};

void TestFilePages::memoryIsTight_data()
{
    QTest::addColumn<quint64>("freeBytes");
    QTest::addColumn<quint64>("copiedBytes");
    QTest::addColumn<bool>("tight");
    // The Qwen3-30B-A3B shape on 24 GB: 14 GB copied, almost nothing free after the load.
    QTest::newRow("24 GB machine") << quint64(300 * MiB) << quint64(14 * GiB) << true;
    QTest::newRow("64 GB machine") << quint64(30 * GiB) << quint64(14 * GiB) << false;
    QTest::newRow("just enough") << quint64(14 * GiB) << quint64(14 * GiB) << false;
    QTest::newRow("nothing copied") << quint64(0) << quint64(0) << false;
}

void TestFilePages::memoryIsTight()
{
    QFETCH(quint64, freeBytes);
    QFETCH(quint64, copiedBytes);
    QFETCH(bool, tight);
    QCOMPARE(internal::memoryIsTight(freeBytes, copiedBytes), tight);
}

// How much of a file is in the page cache (mincore on a mapping of our own).
static qint64 pageCacheBytes(const QString &path)
{
    const int fd = ::open(path.toLocal8Bit().constData(), O_RDONLY);
    const auto size = size_t(QFileInfo(path).size());
    void *map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED)
        return -1;
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> in((size + page - 1) / page);
    qint64 bytes = 0;
    if (::mincore(map, size, in.data()) == 0)
        for (unsigned char c : in)
            bytes += (c & 1) ? qint64(page) : 0;
    ::munmap(map, size);
    return bytes;
}

void TestFilePages::pageCache_data()
{
    QTest::addColumn<int>("drop");
    QTest::addColumn<bool>("copiesCached");
    QTest::newRow("never") << int(PageCacheDrop::Never) << true;
    QTest::newRow("always") << int(PageCacheDrop::Always) << false;
}

// The repacking Q4_K model in `dir`, and its CPU-only plan on this machine: the bytes used in
// place and the bytes copied out of the mapping (repacked). False when it cannot be written.
struct Repacked {
    QString path;
    LoadSettings load;
    qint64 inPlace = 0;
    qint64 copied = 0;
    bool repacks() const { return copied >= 256 * 1024; } // else this CPU repacks none of it
};
static bool writeRepacked(const QTemporaryDir &dir, Repacked &r)
{
    r.path = dir.filePath("q4k.gguf");
    if (!TestFixtures::writeRepackedQ4K(r.path))
        return false;
    auto info = inspectModel(r.path.toStdString());
    if (!info)
        return false;
    PlanSettings ps;
    ps.load.gpuLayers = 0;
    const MemoryPlan plan = analyticPlan(*info, ps, targetFromHardware(probeHardware()));
    r.load = ps.load;
    r.inPlace = qint64(plan.mmapResidentBytes);
    r.copied = qint64(plan.ram.use.weights() - plan.mmapResidentBytes);
    return true;
}

// A Q4_K model on a CPU that repacks Q4_K, loaded with mmap: its copied weights' pages stay in
// the page cache or leave it as asked (the load itself decided by free memory: here plenty).
void TestFilePages::pageCache()
{
    QFETCH(int, drop);
    QFETCH(bool, copiesCached);
    QTemporaryDir dir;
    Repacked r;
    QVERIFY(writeRepacked(dir, r));
    if (!r.repacks())
        QSKIP("this CPU repacks none of this model's weights");
    auto model = Model::load(r.path.toStdString(), r.load);
    QVERIFY(model.ok());
    const uint64_t released =
        internal::releaseCopiedFilePages(internal::llamaModel(**model), (*model)->info().files, PageCacheDrop(drop));
    // Whole pages only: a tiny model loses a partial page at each end of every gap.
    QVERIFY2(released >= uint64_t(r.copied) / 2, qPrintable(QString::number(released)));
    const qint64 cached = pageCacheBytes(r.path);
    const QString what = QStringLiteral("%1 bytes of the file in the page cache; in place %2, copied %3")
                             .arg(cached)
                             .arg(r.inPlace)
                             .arg(r.copied);
    if (copiesCached)
        QVERIFY2(cached >= r.inPlace + r.copied * 9 / 10, qPrintable(what));
    else
        QVERIFY2(cached <= r.inPlace + 32 * ::sysconf(_SC_PAGESIZE), qPrintable(what)); // partial pages at the ends
}

// Auto-tune loads candidates of the file that the chat has loaded: a second load releases its
// own copied pages, not the first model's mapping (which would fault its weights in again).
void TestFilePages::anotherModelOfTheFileKeepsItsPages()
{
    QTemporaryDir dir;
    Repacked r;
    QVERIFY(writeRepacked(dir, r));
    if (!r.repacks())
        QSKIP("this CPU repacks none of this model's weights");
    auto first = Model::load(r.path.toStdString(), r.load);
    QVERIFY(first.ok());
    auto second = Model::load(r.path.toStdString(), r.load);
    QVERIFY(second.ok());
    const qint64 rss = TestFixtures::mappedResidentBytes(r.path);
    QVERIFY2(rss >= r.inPlace * 2 * 9 / 10,
             qPrintable(QStringLiteral("both models map %1 bytes resident, each uses %2 in place").arg(rss).arg(r.inPlace)));
}

QTEST_GUILESS_MAIN(TestFilePages)
#include "tst_filepages.moc"
