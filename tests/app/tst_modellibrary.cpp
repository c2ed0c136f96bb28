#include "appsettings.h"
#include "modellibrary.h"
#include "modelsettings.h"
#include "testfixtures.h"

#include "fixtures.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <sys/stat.h>

class TestModelLibrary : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void recentMovesToTopAndPersists();
    void offeredAreMarkedAndNotSaved();
    void capped();
    void modelBeingOpenedIsListed();
    void scansFolders();
    void fitVerdictsFollowTheTarget();
    void quantDescriptions_data();
    void quantDescriptions();
};

void TestModelLibrary::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestModelLibrary::init()
{
    AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear();
}

void TestModelLibrary::recentMovesToTopAndPersists()
{
    QTemporaryDir dir;
    const QString a = dir.filePath("a.gguf"), b = dir.filePath("b.gguf");
    QFile(a).open(QIODevice::WriteOnly);
    {
        ModelLibrary lib;
        QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
        lib.addRecent(a);
        lib.addRecent(b);
        lib.addRecent(a);
        QCOMPARE(lib.rowCount(), 2);
        QCOMPARE(lib.pathAt(0), a);
        QCOMPARE(lib.data(lib.index(0), Qt::DisplayRole).toString(), QString("a.gguf"));
        QVERIFY(lib.data(lib.index(0), ModelLibrary::ExistsRole).toBool());
        QTRY_VERIFY(!lib.data(lib.index(1), ModelLibrary::ExistsRole).toBool()); // b was never created
        // Looked at on the pool, not at each paint: gone, it is said after the next look.
        QTRY_VERIFY(!lib.isScanning() && !lib.isCheckingFiles());
        QVERIFY(QFile::remove(a));
        QVERIFY(lib.data(lib.index(0), ModelLibrary::ExistsRole).toBool());
        lib.checkFiles();
        QTRY_VERIFY(!lib.data(lib.index(0), ModelLibrary::ExistsRole).toBool());
        QVERIFY(QFile(a).open(QIODevice::WriteOnly));
        lib.checkFiles();
        QTRY_VERIFY(lib.data(lib.index(0), ModelLibrary::ExistsRole).toBool());
    }
    ModelLibrary again;
    QCOMPARE(again.rowCount(), 2);
    QCOMPARE(again.pathAt(0), a);
    again.remove(1);
    QCOMPARE(ModelLibrary().rowCount(), 1);
}

void TestModelLibrary::offeredAreMarkedAndNotSaved()
{
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    lib.addRecent("/m/known.gguf");
    lib.offer({"/m/x.gguf", "/m/y.gguf", "/m/known.gguf"});
    QCOMPARE(lib.rowCount(), 3);
    QCOMPARE(lib.pathAt(0), QString("/m/x.gguf")); // in the order given
    QCOMPARE(lib.pathAt(1), QString("/m/y.gguf"));
    QVERIFY(lib.data(lib.index(0), ModelLibrary::OfferedRole).toBool());
    QVERIFY(!lib.data(lib.index(2), ModelLibrary::OfferedRole).toBool());
    // Opening an offered one makes it recent.
    lib.addRecent("/m/y.gguf");
    QCOMPARE(lib.pathAt(0), QString("/m/y.gguf"));
    QVERIFY(!lib.data(lib.index(0), ModelLibrary::OfferedRole).toBool());
    ModelLibrary reloaded;
    QCOMPARE(reloaded.rowCount(), 2); // y and known; x was only offered
}

void TestModelLibrary::capped()
{
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int i = 0; i < ModelLibrary::kMaxEntries + 5; ++i)
        lib.addRecent(QString("/m/%1.gguf").arg(i));
    QCOMPARE(lib.rowCount(), ModelLibrary::kMaxEntries);
    QCOMPARE(lib.pathAt(0), QString("/m/%1.gguf").arg(ModelLibrary::kMaxEntries + 4));
}

// The model being opened is listed at once, at the top, with its progress; a failed load takes a
// row it added away again and leaves a known model where it is.
void TestModelLibrary::modelBeingOpenedIsListed()
{
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    lib.addRecent("/m/known.gguf");
    lib.loadStarted("/m/new.gguf");
    QCOMPARE(lib.rowCount(), 2);
    QCOMPARE(lib.pathAt(0), QString("/m/new.gguf"));
    QCOMPARE(lib.data(lib.index(0), ModelLibrary::LoadingRole).toDouble(), 0.0);
    QVERIFY(!lib.data(lib.index(1), ModelLibrary::LoadingRole).isValid());
    QSignalSpy changed(&lib, &QAbstractItemModel::dataChanged);
    lib.loadProgress(0.42);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(lib.data(lib.index(0), ModelLibrary::LoadingRole).toDouble(), 0.42);
    QCOMPARE(lib.data(lib.index(0), Qt::DisplayRole).toString(), QString("new.gguf — loading 42%"));
    lib.loadProgress(0.421); // the same percent: no repaint
    QCOMPARE(changed.count(), 1);
    lib.loadEnded(true);
    lib.addRecent("/m/new.gguf");
    QCOMPARE(lib.data(lib.index(0), Qt::DisplayRole).toString(), QString("new.gguf"));
    QVERIFY(!lib.data(lib.index(0), ModelLibrary::LoadingRole).isValid());
    QCOMPARE(ModelLibrary().rowCount(), 2); // remembered as recent

    // A file that does not load: its row goes, a known one stays (and is not "loading").
    lib.loadStarted("/m/broken.gguf");
    QCOMPARE(lib.rowCount(), 3);
    lib.loadEnded(false);
    QCOMPARE(lib.rowCount(), 2);
    QCOMPARE(lib.indexOf("/m/broken.gguf"), -1);
    lib.loadStarted("/m/known.gguf");
    QCOMPARE(lib.pathAt(0), QString("/m/known.gguf"));
    lib.loadEnded(false);
    QCOMPARE(lib.rowCount(), 2);
    QVERIFY(!lib.data(lib.index(0), ModelLibrary::LoadingRole).isValid());
    QCOMPARE(ModelLibrary().indexOf("/m/broken.gguf"), -1);
}

namespace {
// A folder with a full-shape MoE, a split model in a subfolder, a broken file and a text file.
void writeModelFolder(const QTemporaryDir &dir)
{
    QVERIFY(shoehorn::fixtures::write(shoehorn::fixtures::qwen3_30b_a3b(),
                                      dir.filePath("Qwen3-30B-A3B-Q4_K_M.gguf").toStdString())
                .empty()); // sparse: written in milliseconds
    QDir(dir.path()).mkdir("split");
    shoehorn::fixtures::Spec spec = shoehorn::fixtures::tinyQwen3Moe();
    spec.splits = 3;
    QVERIFY(shoehorn::fixtures::write(spec, dir.filePath("split/tiny.gguf").toStdString()).empty());
    QFile broken(dir.filePath("broken.gguf"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("GGUF\x03\x00\x00\x00 and then nothing");
    broken.close();
    // A model that sees images, its projectors beside it: paired, never listed as models. A
    // projector beside the split (M-RoPE-less) model is listed as not for it.
    QDir(dir.path()).mkdir("vision");
    QVERIFY(shoehorn::fixtures::write(shoehorn::fixtures::tinyVision(), dir.filePath("vision/tiny-vision.gguf").toStdString()).empty());
    auto projector = shoehorn::fixtures::tinyProjector();
    QVERIFY(shoehorn::fixtures::writeProjector(projector, dir.filePath("vision/mmproj-tiny-F16.gguf").toStdString()).empty());
    QVERIFY(shoehorn::fixtures::writeProjector(projector, dir.filePath("split/mmproj-tiny-F16.gguf").toStdString()).empty());
    projector.type = "f32";
    QVERIFY(shoehorn::fixtures::writeProjector(projector, dir.filePath("vision/mmproj-tiny-F32.gguf").toStdString()).empty());
    // A named pipe called *.gguf: reading it would wait for a writer forever.
    QVERIFY(::mkfifo(qPrintable(dir.filePath("pipe.gguf")), 0600) == 0);
    QFile text(dir.filePath("notes.txt"));
    QVERIFY(text.open(QIODevice::WriteOnly));
    text.write("not a model");
    text.close();
}

// The GPU of a GTX 1060 6 GB with `ramGiB` of RAM.
shoehorn::PlanTarget gtx1060(uint64_t ramGiB)
{
    shoehorn::PlanTarget t = shoehorn::targetFromProfile(*shoehorn::findProfile("gtx1060-6g"));
    if (ramGiB > 0)
        t.ramAvailableBytes = t.ramTotalBytes = ramGiB << 30;
    return t;
}
// `lib` planning for a GTX 1060 has scanned `folder`; whether in time.
bool scanned(ModelLibrary &lib, const QString &folder)
{
    lib.setTarget(gtx1060(0));
    QSignalSpy done(&lib, &ModelLibrary::scanFinished);
    lib.addFolder(folder);
    return QTest::qWaitFor([&] { return done.count() >= 1 && !lib.isScanning(); }, 20000);
}
} // namespace

void TestModelLibrary::scansFolders()
{
    QTemporaryDir dir;
    writeModelFolder(dir);
    if (QTest::currentTestFailed())
        return;
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(scanned(lib, dir.path()));
    QCOMPARE(lib.rowCount(), 4); // the big model, the split model once, the vision model, the broken file
    QVERIFY(lib.indexOf(dir.filePath("split/tiny-00001-of-00003.gguf")) >= 0);
    QCOMPARE(lib.indexOf(dir.filePath("split/tiny-00002-of-00003.gguf")), -1);
    const int q = lib.indexOf(dir.filePath("Qwen3-30B-A3B-Q4_K_M.gguf"));
    QVERIFY(q >= 0);
    auto cell = [&](int row, int col) { return lib.data(lib.index(row, col)).toString(); };
    QCOMPARE(cell(q, ModelLibrary::ArchitectureColumn), QString("qwen3moe"));
    QVERIFY2(cell(q, ModelLibrary::ParametersColumn).startsWith("30.5B (3."), qPrintable(cell(q, 2)));
    QVERIFY(cell(q, ModelLibrary::ParametersColumn).endsWith("B active)"));
    QCOMPARE(cell(q, ModelLibrary::QuantColumn), QString("Q4_K_M"));
    QCOMPARE(cell(q, ModelLibrary::ContextColumn), QString("40k"));
    QCOMPARE(cell(q, ModelLibrary::ImagesColumn), QString()); // no projector beside it
    const int vision = lib.indexOf(dir.filePath("vision/tiny-vision.gguf"));
    QCOMPARE(cell(vision, ModelLibrary::ImagesColumn), QString("F16"));
    QVERIFY(lib.data(lib.index(vision, ModelLibrary::ImagesColumn), Qt::ToolTipRole).toString().contains("mmproj-tiny-F32.gguf"));
    // The projector choice is read once, not on every paint of the list (a read waits for a
    // pending settings write): a choice stored behind the list's back shows once it is told.
    ModelSettings off;
    off.projector = ModelSettings::kNoProjector;
    ModelSettingsStore::save(dir.filePath("vision/tiny-vision.gguf"), off);
    QCOMPARE(cell(vision, ModelLibrary::ImagesColumn), QString("F16"));
    QSignalSpy changed(&lib, &QAbstractItemModel::dataChanged);
    lib.settingsChanged(dir.filePath("vision/tiny-vision.gguf"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().column(), int(ModelLibrary::ImagesColumn));
    QCOMPARE(cell(vision, ModelLibrary::ImagesColumn), QString("off"));
    const int split = lib.indexOf(dir.filePath("split/tiny-00001-of-00003.gguf"));
    QCOMPARE(cell(split, ModelLibrary::ImagesColumn), QString());
    QVERIFY(lib.data(lib.index(split, ModelLibrary::ImagesColumn), Qt::ToolTipRole).toString().contains("not for this model"));
    QTRY_COMPARE(lib.data(lib.index(q, 0), ModelLibrary::FitRole).value<ModelLibrary::FitVerdict>(),
                 ModelLibrary::FitVerdict::GpuAndRam); // worked out on the pool after the scan
    const int b = lib.indexOf(dir.filePath("broken.gguf"));
    QVERIFY(b >= 0);
    QVERIFY(!cell(b, ModelLibrary::FitColumn).isEmpty()); // says it is unreadable
    QVERIFY(lib.data(lib.index(b, 0), Qt::ToolTipRole).toString().contains("broken.gguf"));
    // Opened (a recent model moves to the top): what the scan found beside it stays.
    lib.addRecent(dir.filePath("vision/tiny-vision.gguf"));
    QCOMPARE(lib.indexOf(dir.filePath("vision/tiny-vision.gguf")), 0);
    QCOMPARE(cell(0, ModelLibrary::ImagesColumn), QString("off"));
    QVERIFY(lib.data(lib.index(0, ModelLibrary::ImagesColumn), Qt::ToolTipRole).toString().contains("mmproj-tiny-F32.gguf"));
    // Folders are remembered, folder files are not "recent".
    QCOMPARE(ModelLibrary().folders(), QStringList{dir.path()});
    lib.removeFolder(dir.path());
    QCOMPARE(lib.rowCount(), 1); // the model that was opened stays, as a recent one
    QCOMPARE(lib.pathAt(0), dir.filePath("vision/tiny-vision.gguf"));
}

// The fit column follows the machine: worked out on the pool, the GUI thread only asks, and
// only the verdict for the target set last is shown.
void TestModelLibrary::fitVerdictsFollowTheTarget()
{
    QTemporaryDir dir;
    QVERIFY(shoehorn::fixtures::write(shoehorn::fixtures::qwen3_30b_a3b(),
                                      dir.filePath("Qwen3-30B-A3B-Q4_K_M.gguf").toStdString())
                .empty());
    ModelLibrary lib;
    QAbstractItemModelTester tester(&lib, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(scanned(lib, dir.path()));
    const int q = lib.indexOf(dir.filePath("Qwen3-30B-A3B-Q4_K_M.gguf"));
    QVERIFY(q >= 0);
    QTRY_COMPARE(lib.data(lib.index(q, 0), ModelLibrary::FitRole).value<ModelLibrary::FitVerdict>(),
                 ModelLibrary::FitVerdict::GpuAndRam);
    // A 24 GB card holds it whole.
    QSignalSpy fitted(&lib, &ModelLibrary::fitsUpdated);
    lib.setTarget(shoehorn::targetFromProfile(*shoehorn::findProfile("rtx4090-24g")));
    QVERIFY(fitted.wait(20000));
    QCOMPARE(lib.data(lib.index(q, 0), ModelLibrary::FitRole).value<ModelLibrary::FitVerdict>(),
             ModelLibrary::FitVerdict::OnGpu);
    // A machine it fits nowhere: auto-fit tries every placement (about 150 ms for this model),
    // on the pool; the GUI thread only asks. Targets set meanwhile end in the last one's verdict.
    const shoehorn::PlanTarget tiny = gtx1060(2);
    fitted.clear();
    QElapsedTimer asked;
    asked.start();
    lib.setTarget(tiny);
    QVERIFY2(asked.elapsed() < 50, qPrintable(QString::number(asked.elapsed())));
    QVERIFY(fitted.wait(20000));
    QCOMPARE(lib.data(lib.index(q, 0), ModelLibrary::FitRole).value<ModelLibrary::FitVerdict>(),
             ModelLibrary::FitVerdict::TooBig);
    fitted.clear();
    lib.setTarget(shoehorn::targetFromProfile(*shoehorn::findProfile("rtx4090-24g")));
    lib.setTarget(tiny);
    lib.setTarget(shoehorn::targetFromProfile(*shoehorn::findProfile("rtx3060-12g")));
    QVERIFY(fitted.wait(20000));
    QTest::qWait(300);
    QCOMPARE(fitted.count(), 1); // the verdicts for targets no longer set are not shown
    QCOMPARE(lib.data(lib.index(q, 0), ModelLibrary::FitRole).value<ModelLibrary::FitVerdict>(),
             ModelLibrary::FitVerdict::GpuAndRam);
    fitted.clear();
    lib.setTarget(shoehorn::targetFromProfile(*shoehorn::findProfile("rtx4090-24g")));
    QVERIFY(fitted.wait(20000));
}

void TestModelLibrary::quantDescriptions_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("Q4_K_M") << "Q4_K_M" << "K-quant";
    QTest::newRow("UD-Q4_K_XL") << "UD-Q4_K_XL" << "Unsloth";
    QTest::newRow("IQ4_NL") << "IQ4_NL" << "I-quant";
    QTest::newRow("Q2_K_XL") << "Q2_K_XL" << "About 2 bits";
    QTest::newRow("F16") << "F16" << "16-bit";
}

void TestModelLibrary::quantDescriptions()
{
    QFETCH(QString, name);
    QFETCH(QString, mentions);
    const QString d = ModelLibrary::quantDescription(name);
    QVERIFY2(d.contains(mentions), qPrintable(d));
}

QTEST_GUILESS_MAIN(TestModelLibrary)
#include "tst_modellibrary.moc"
