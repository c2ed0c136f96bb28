// Every settings key and default in one place: the first-open rule, defaults, per-model keys.
#include "appsettings.h"
#include "samplingpresets.h"
#include "testsettings.h"

#include <QtTest>

class TestAppSettings : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(); }
    void init() { AppSettings::waitForWrites(); // a write still pending from the last test lands first
    QSettings().clear(); }
    void defaults();
    void forModel_data();
    void forModel();
    void systemPromptPerModel();
    void writtenInTheBackgroundReadAtOnce_data();
    void writtenInTheBackgroundReadAtOnce();
    void hashedKeys();
};

void TestAppSettings::defaults()
{
    const ModelSettings d = AppSettings::defaults();
    QCOMPARE(d.load.gpuLayers, -1);
    QCOMPARE(d.context.contextSize, AppSettings::kFirstOpenContext);
    QCOMPARE(SamplingPresets::match(d.generation.sampling, false), SamplingPresets::Id::InstructGeneral);
}

void TestAppSettings::forModel_data()
{
    QTest::addColumn<bool>("remembered");
    QTest::addColumn<QString>("currentPath");
    QTest::addColumn<uint>("trained");
    QTest::addColumn<uint>("context");
    QTest::addColumn<int>("cpuMoe");
    // current: 32k context, 20 expert layers on the CPU; remembered: 4k, 3.
    QTest::newRow("remembered wins") << true << "/m/other.gguf" << 0u << 4096u << 3;
    QTest::newRow("remembered, past the trained length") << true << "/m/other.gguf" << 2048u << 4096u << 3;
    QTest::newRow("first open after another model") << false << "/m/other.gguf" << 0u << 8192u << 0;
    QTest::newRow("first open, short trained length") << false << "/m/other.gguf" << 2048u << 2048u << 0;
    QTest::newRow("no model yet: the current settings") << false << "" << 0u << 32768u << 20;
    QTest::newRow("no model yet, capped at the trained length") << false << "" << 16384u << 16384u << 20;
    QTest::newRow("the same model again") << false << "/m/this.gguf" << 0u << 32768u << 20;
}

void TestAppSettings::forModel()
{
    QFETCH(bool, remembered);
    QFETCH(QString, currentPath);
    QFETCH(uint, trained);
    QFETCH(uint, context);
    QFETCH(int, cpuMoe);
    const QString path = "/m/this.gguf";
    if (remembered) {
        ModelSettings stored = AppSettings::defaults();
        stored.context.contextSize = 4096;
        stored.load.cpuMoeLayers = 3;
        ModelSettingsStore::save(path, stored);
    }
    ModelSettings current = AppSettings::defaults();
    current.context.contextSize = 32768;
    current.load.cpuMoeLayers = 20;
    bool wasRemembered = !remembered;
    const ModelSettings s = AppSettings::forModel(path, current, currentPath, trained, &wasRemembered);
    QCOMPARE(wasRemembered, remembered);
    QCOMPARE(s.context.contextSize, context);
    QCOMPARE(s.load.cpuMoeLayers, cpuMoe);
}

// Each write rewrites the settings file on the writer's thread; a read made right after it sees it.
void TestAppSettings::writtenInTheBackgroundReadAtOnce_data()
{
    QTest::addColumn<QString>("what");
    for (const char *what : {"language", "startup model", "custom profiles", "window"})
        QTest::newRow(what) << QString(what);
}

void TestAppSettings::writtenInTheBackgroundReadAtOnce()
{
    QFETCH(QString, what);
    for (int round = 0; round < 20; ++round) {
        const QString value = QStringLiteral("value %1 %2").arg(what).arg(round);
        if (what == "language") {
            AppSettings::setLanguage(value);
            QCOMPARE(AppSettings::language(), value);
        } else if (what == "startup model") {
            AppSettings::setStartupModel(value);
            QCOMPARE(AppSettings::startupModel(), value);
        } else if (what == "custom profiles") {
            AppSettings::setCustomProfiles(value.toUtf8());
            QCOMPARE(AppSettings::customProfiles(), value.toUtf8());
        } else {
            AppSettings::setWindow(value.toUtf8(), value.toUtf8() + "!");
            QCOMPARE(AppSettings::windowGeometry(), value.toUtf8());
            QCOMPARE(AppSettings::windowState(), value.toUtf8() + "!");
        }
    }
}

void TestAppSettings::systemPromptPerModel()
{
    AppSettings::setSystemPrompt("/m/a.gguf", "Be brief.");
    QCOMPARE(AppSettings::systemPrompt("/m/a.gguf"), QString("Be brief."));
    QVERIFY(AppSettings::systemPrompt("/m/b.gguf").isEmpty());
    AppSettings::setSystemPrompt("/m/a.gguf", {});
    QVERIFY(AppSettings::systemPrompt("/m/a.gguf").isEmpty());
    AppSettings::waitForWrites(); // written on the settings writer's thread
    QVERIFY(!QSettings().allKeys().join(' ').contains("systemPrompts")); // removed, not kept empty
}

void TestAppSettings::hashedKeys()
{
    // Paths hold characters keys cannot ("/", "\", "[", "="): one key per path, stable.
    const QString weird = "/m/[x]=y\\z 模型.gguf";
    const QString k = AppSettings::hashedKey("modelSettings", weird);
    QCOMPARE(k, AppSettings::hashedKey("modelSettings", weird));
    QVERIFY(k != AppSettings::hashedKey("modelSettings", weird + "x"));
    QVERIFY(QRegularExpression("^modelSettings/[0-9a-f]{40}$").match(k).hasMatch());
    QCOMPARE(AppSettings::hashedKey("systemPrompts", weird, 16).size(), QString("systemPrompts/").size() + 16);
}

QTEST_GUILESS_MAIN(TestAppSettings)
#include "tst_appsettings.moc"
