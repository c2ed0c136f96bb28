// The per-model speculation choice in the offload panel: what each choice means as llama.cpp's
// flags, MTP only for a model with an MTP layer, and the draft file chosen through its dialog
// (a cancelled dialog leaves the choice as it was).
#include "speculationpicker.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QtTest>

using namespace shoehorn;

class TestSpeculationPicker : public QObject
{
    Q_OBJECT
private slots:
    void settingsRoundTrip_data();
    void settingsRoundTrip();
    void mtpOnlyWithAnMtpLayer();
    void draftModelThroughTheDialog();
};

void TestSpeculationPicker::settingsRoundTrip_data()
{
    QTest::addColumn<QString>("types");
    QTest::addColumn<QString>("draft");
    QTest::addColumn<int>("choice");
    QTest::addColumn<bool>("automatic");
    QTest::newRow("off") << "none" << "" << int(SpeculationPicker::Off) << false;
    QTest::newRow("MTP") << "draft-mtp" << "" << int(SpeculationPicker::Mtp) << false;
    QTest::newRow("n-gram") << "ngram-simple" << "" << int(SpeculationPicker::NGram) << false;
    QTest::newRow("draft model") << "draft-simple" << "/m/small.gguf" << int(SpeculationPicker::DraftModel) << false;
    QTest::newRow("auto") << "none" << "" << int(SpeculationPicker::Auto) << true;
}

void TestSpeculationPicker::settingsRoundTrip()
{
    QFETCH(QString, types);
    QFETCH(QString, draft);
    QFETCH(int, choice);
    QFETCH(bool, automatic);
    SpeculationPicker picker;
    picker.setModelHasMtp(true);
    QSignalSpy edited(&picker, &SpeculationPicker::edited);
    SpeculationSettings s;
    s.types = types.toStdString();
    s.draftModel = draft.toStdString();
    picker.setSettings(s, automatic);
    QCOMPARE(int(picker.choice()), choice);
    QCOMPARE(picker.isAuto(), automatic);
    QCOMPARE(picker.settings(), s);
    QCOMPARE(edited.count(), 0); // showing stored settings is not an edit
}

void TestSpeculationPicker::mtpOnlyWithAnMtpLayer()
{
    SpeculationPicker picker;
    auto *combo = picker.findChild<QComboBox *>("speculation");
    auto *items = qobject_cast<QStandardItemModel *>(combo->model());
    picker.setModelHasMtp(false);
    QVERIFY(!items->item(SpeculationPicker::Mtp)->isEnabled());
    QVERIFY(items->item(SpeculationPicker::Mtp)->toolTip().contains("no MTP layer"));
    picker.setModelHasMtp(true);
    QVERIFY(items->item(SpeculationPicker::Mtp)->isEnabled());
}

void TestSpeculationPicker::draftModelThroughTheDialog()
{
    SpeculationPicker picker;
    auto *combo = picker.findChild<QComboBox *>("speculation");
    QSignalSpy edited(&picker, &SpeculationPicker::edited);
    combo->setCurrentIndex(SpeculationPicker::NGram);
    QCOMPARE(edited.count(), 1);
    QString answer; // the dialog: cancelled first
    picker.setFileChooser([&answer](std::function<void(const QString &)> done) { done(answer); });
    combo->setCurrentIndex(SpeculationPicker::DraftModel);
    QCOMPARE(int(picker.choice()), int(SpeculationPicker::NGram));
    QCOMPARE(edited.count(), 1);
    answer = "/models/Qwen3-0.6B-Q8_0.gguf";
    combo->setCurrentIndex(SpeculationPicker::DraftModel);
    QCOMPARE(edited.count(), 2);
    QCOMPARE(picker.settings().types, std::string("draft-simple"));
    QCOMPARE(picker.settings().draftModel, answer.toStdString());
    QCOMPARE(picker.findChild<QLabel *>("draftModel")->text(), QString("Qwen3-0.6B-Q8_0.gguf"));
}

QTEST_MAIN(TestSpeculationPicker)
#include "tst_speculationpicker.moc"
