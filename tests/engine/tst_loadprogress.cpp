// One load's progress over its phases (internal/loadprogress): the page-cache warm-up, llama.cpp's
// silent mapping (measured from the process's file-backed memory) and llama.cpp's own reports.
#include "loadprogress.h"

#include <QTemporaryFile>
#include <QtTest>

#include <sys/mman.h>

#include <mutex>

using shoehorn::internal::LoadProgress;

class TestLoadProgress : public QObject
{
    Q_OBJECT
private slots:
    void phases_data();
    void phases();
    void mappingMoves();
    void cancel();
};

void TestLoadProgress::phases_data()
{
    QTest::addColumn<bool>("mmap");
    QTest::addColumn<QList<float>>("expected"); // after warmed(1/2) (mmap), fromLlama(0), (1/2), (1)
    QTest::newRow("mmap") << true << QList<float>{0.225f, 0.55f, 0.775f, 1.0f};
    QTest::newRow("no-mmap") << false << QList<float>{0.0f, 0.5f, 1.0f}; // llama.cpp reports it all
}

void TestLoadProgress::phases()
{
    QFETCH(bool, mmap);
    QFETCH(QList<float>, expected);
    QList<float> seen;
    const LoadProgress::Fn fn = [&](float p) { seen << p; };
    LoadProgress progress(fn, nullptr, mmap);
    if (mmap)
        progress.warmed(50, 100);
    QVERIFY(progress.fromLlama(0.0f));
    QVERIFY(progress.fromLlama(0.5f));
    progress.warmed(100, 100); // late and lower: never shown as a step back
    QVERIFY(progress.fromLlama(1.0f));
    QCOMPARE(seen.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i)
        QVERIFY2(qAbs(seen[i] - expected[i]) < 1e-4f, qPrintable(QString::number(seen[i])));
}

void TestLoadProgress::mappingMoves()
{
    // A file mapped and read a part at a time, as MAP_POPULATE does inside llama.cpp: the watcher
    // reports the mapping phase moving, between the warm-up's end and llama.cpp's first report.
    constexpr qint64 size = 64 << 20;
    QTemporaryFile file;
    QVERIFY(file.open());
    QVERIFY(file.resize(size));
    std::mutex m;
    QList<float> seen;
    const LoadProgress::Fn fn = [&](float p) {
        std::lock_guard lock(m);
        seen << p;
    };
    LoadProgress progress(fn, nullptr, true);
    progress.warmed(size, size);
    progress.watchMapping(size);
    void *map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.handle(), 0);
    QVERIFY(map != MAP_FAILED);
    for (int part = 1; part <= 4; ++part) {
        QVERIFY(::madvise(map, size_t(size) * part / 4, MADV_WILLNEED) == 0);
        for (qint64 at = 0; at < size * part / 4; at += 4096)
            (void)*(static_cast<volatile const char *>(map) + at);
        QTest::qWait(250);
    }
    QVERIFY(progress.fromLlama(0.0f));
    ::munmap(map, size);
    std::lock_guard lock(m);
    int inside = 0;
    for (float p : seen)
        inside += p > 0.45f + 1e-4f && p < 0.55f - 1e-4f;
    QVERIFY2(inside >= 2, qPrintable(QString("%1 reports between the phases").arg(inside)));
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
}

void TestLoadProgress::cancel()
{
    std::atomic<bool> cancelled{false};
    const LoadProgress::Fn fn;
    LoadProgress progress(fn, &cancelled, true);
    QVERIFY(progress.fromLlama(0.1f));
    cancelled = true;
    QVERIFY(progress.cancelled());
    QVERIFY(!progress.fromLlama(0.2f)); // llama.cpp stops loading
}

QTEST_GUILESS_MAIN(TestLoadProgress)
#include "tst_loadprogress.moc"
