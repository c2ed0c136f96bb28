// The session's state machine and request ids, with a fake worker (no llama.cpp).
#include "fakeworker.h"
#include "inferencesession.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

using State = InferenceSession::State;

class TestInferenceSession : public QObject
{
    Q_OBJECT
private:
    struct Fixture {
        FakeWorker *worker = new FakeWorker;
        InferenceSession session{std::unique_ptr<Worker>(worker)};
    };
    [[nodiscard]] static bool loadModel(InferenceSession &s, const QString &path)
    {
        QSignalSpy loaded(&s, &InferenceSession::modelLoaded);
        s.load(path, {}, {});
        return QTest::qWaitFor([&] { return loaded.count() == 1; }, 5000) && s.state() == State::Ready;
    }

private slots:
    void loadThenAnswer();
    void answerNeedsAModel();
    void stopEndsTheAnswerAsCancelled();
    void loadDuringAnswerStopsItFirst();
    void loadDuringLoadLoadsTheLatestOnce();
    void cancelLoad();
    void failedLoadLeavesNoModel();
    void refusedFileKeepsTheModel();
    void exactPlansCollapseToTheNewest();
    void shutdownHasADeadline();
    void loadDuringTuningSkipsItsResume();
};

void TestInferenceSession::shutdownHasADeadline()
{
    // A worker stuck where no flag is read (a template that spins) cannot hold quitting hostage.
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->stuck = true;
    f.worker->tokens = 150; // 1.5 s, then the thread ends and the fixture can be destroyed
    f.worker->tokenMs = 10;
    QSignalSpy deltas(&f.session, &InferenceSession::delta);
    f.session.generate({{"user", "spin", {}}}, {});
    QTRY_VERIFY(deltas.count() > 0);
    QElapsedTimer t;
    t.start();
    QVERIFY(!f.session.shutdown(300));
    QVERIFY(t.elapsed() < 1000);
}

// Another model asked for while auto-tune measures (or quitting then): the tune stops and its
// model is not loaded again first, which would only delay the next one.
void TestInferenceSession::loadDuringTuningSkipsItsResume()
{
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->tuneMs = 100000;
    QSignalSpy tuned(&f.session, &InferenceSession::tuningFinished);
    QSignalSpy loaded(&f.session, &InferenceSession::modelLoaded);
    QVERIFY(!f.session.startTuning({}));
    f.session.cancelTuning(); // stopped by the user: the model comes back
    QTRY_COMPARE(tuned.count(), 1);
    const auto resumes = f.worker->resumes;
    QCOMPARE(resumes->load(), 1);
    QVERIFY(!f.session.startTuning({}));
    QTest::qWait(20);
    f.session.load("/models/b.gguf", {}, {});
    QTRY_COMPARE(tuned.count(), 2);
    QTRY_COMPARE(loaded.count(), 1);
    QCOMPARE(f.session.model().path, QString("/models/b.gguf"));
    QCOMPARE(resumes->load(), 1); // not for the second tune
    QVERIFY(!f.session.startTuning({}));
    QVERIFY(f.session.shutdown(2000)); // the worker is deleted with its thread
    QCOMPARE(resumes->load(), 1);
}

void TestInferenceSession::loadThenAnswer()
{
    Fixture f;
    QSignalSpy states(&f.session, &InferenceSession::stateChanged);
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    QCOMPARE(f.session.model().path, QString("/models/a.gguf"));
    QSignalSpy deltas(&f.session, &InferenceSession::delta);
    QSignalSpy finished(&f.session, &InferenceSession::generationFinished);
    f.worker->tokens = 5;
    QVERIFY(f.session.generate({{"user", "hi", {}}}, {}) > 0);
    QCOMPARE(f.session.state(), State::Generating);
    QCOMPARE(f.session.generate({{"user", "again", {}}}, {}), 0ull); // one answer at a time
    QCOMPARE(f.session.startTuning({}).code, shoehorn::ErrorCode::Busy);
    QTRY_COMPARE(finished.count(), 1);
    QCOMPARE(deltas.count(), 5);
    QCOMPARE(deltas.first().at(0).toString(), QString("w0 "));
    QCOMPARE(f.session.state(), State::Ready);
    const QList<State> expected{State::Loading, State::Ready, State::Generating, State::Ready};
    QCOMPARE(states.count(), expected.size());
    for (int i = 0; i < expected.size(); ++i)
        QCOMPARE(states.at(i).first().value<State>(), expected[i]);
}

void TestInferenceSession::answerNeedsAModel()
{
    Fixture f;
    QCOMPARE(f.session.generate({{"user", "hi", {}}}, {}), 0ull);
    QCOMPARE(f.session.state(), State::NoModel);
    QCOMPARE(f.session.startTuning({}).code, shoehorn::ErrorCode::NoModel);
}

void TestInferenceSession::stopEndsTheAnswerAsCancelled()
{
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->tokens = 100000; // it would run for minutes
    QSignalSpy deltas(&f.session, &InferenceSession::delta);
    QSignalSpy finished(&f.session, &InferenceSession::generationFinished);
    f.session.generate({{"user", "go on", {}}}, {});
    QTRY_VERIFY(deltas.count() > 0);
    QElapsedTimer t;
    t.start();
    f.session.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 2000);
    qInfo("stopped after %lld ms", t.elapsed());
    QCOMPARE(finished.first().first().value<shoehorn::GenerationStats>().stopReason, shoehorn::StopReason::Cancelled);
    QCOMPARE(f.session.state(), State::Ready);
}

void TestInferenceSession::loadDuringAnswerStopsItFirst()
{
    // The answer is stopped, its end is still delivered (the chat marks it stopped), then the
    // new model loads.
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->tokens = 100000;
    QSignalSpy deltas(&f.session, &InferenceSession::delta);
    QSignalSpy finished(&f.session, &InferenceSession::generationFinished);
    QSignalSpy loaded(&f.session, &InferenceSession::modelLoaded);
    f.session.generate({{"user", "go on", {}}}, {});
    QTRY_VERIFY(deltas.count() > 0);
    f.session.load("/models/b.gguf", {}, {});
    QCOMPARE(f.session.state(), State::Loading);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.first().first().value<shoehorn::GenerationStats>().stopReason, shoehorn::StopReason::Cancelled);
    QCOMPARE(f.session.model().path, QString("/models/b.gguf"));
    QCOMPARE(f.session.state(), State::Ready);
}

void TestInferenceSession::loadDuringLoadLoadsTheLatestOnce()
{
    Fixture f;
    f.worker->loadMs = 300;
    QSignalSpy loaded(&f.session, &InferenceSession::modelLoaded);
    QSignalSpy failed(&f.session, &InferenceSession::loadFailed);
    f.session.load("/models/a.gguf", {}, {});
    f.session.load("/models/b.gguf", {}, {});
    f.session.load("/models/c.gguf", {}, {});
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    QTest::qWait(50);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(failed.count(), 0); // the cancelled first load is not an error to show
    QCOMPARE(f.session.model().path, QString("/models/c.gguf"));
    QCOMPARE(f.worker->loads.load(), 2); // a (cancelled), then only the newest
}

void TestInferenceSession::cancelLoad()
{
    Fixture f;
    f.worker->loadMs = 2000;
    QSignalSpy failed(&f.session, &InferenceSession::loadFailed);
    f.session.load("/models/a.gguf", {}, {});
    f.session.cancelLoad();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 1000);
    QCOMPARE(failed.first().first().value<shoehorn::Error>().code, shoehorn::ErrorCode::Cancelled);
    QCOMPARE(f.session.state(), State::NoModel);
}

void TestInferenceSession::failedLoadLeavesNoModel()
{
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    QSignalSpy failed(&f.session, &InferenceSession::loadFailed);
    f.session.load("/models/bad.gguf", {}, {});
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.first().first().value<shoehorn::Error>().code, shoehorn::ErrorCode::NotGguf);
    QVERIFY(!f.session.hasModel()); // the worker dropped the old model before loading
    QCOMPARE(f.session.state(), State::NoModel);
}

// A file that fails its check is refused before the worker drops anything: the model stays.
// Where an earlier load already dropped it (cancelled by this one), or a tune that was not to
// load it again, there is none to keep: no model, said as a failed load.
void TestInferenceSession::refusedFileKeepsTheModel()
{
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    QSignalSpy failed(&f.session, &InferenceSession::loadFailed);
    f.session.load("/models/refused.gguf", {}, {});
    QTRY_COMPARE(failed.count(), 1);
    QCOMPARE(failed.last().first().value<shoehorn::Error>().code, shoehorn::ErrorCode::NotGguf);
    QCOMPARE(f.session.state(), State::Ready);
    QCOMPARE(f.session.model().path, QString("/models/a.gguf"));

    f.worker->loadMs = 2000;
    f.session.load("/models/b.gguf", {}, {}); // drops a
    QTest::qWait(50);
    f.session.load("/models/refused.gguf", {}, {}); // cancels b, then is refused
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 5000);
    QCOMPARE(f.session.state(), State::NoModel);
    QVERIFY(!f.session.hasModel());

    f.worker->loadMs = 0;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->tuneMs = 100000;
    QVERIFY(!f.session.startTuning({}));
    QTest::qWait(20);
    f.session.load("/models/refused.gguf", {}, {}); // the tune ends without loading a again
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 3, 5000);
    QCOMPARE(f.session.state(), State::NoModel);
    QVERIFY(!f.session.hasModel());
}

void TestInferenceSession::exactPlansCollapseToTheNewest()
{
    // Requests queued behind a busy worker run once, for the newest settings.
    Fixture f;
    QVERIFY(loadModel(f.session, "/models/a.gguf"));
    f.worker->tokens = 20;
    f.worker->tokenMs = 10;
    QSignalSpy finished(&f.session, &InferenceSession::generationFinished);
    QSignalSpy exact(&f.session, &InferenceSession::exactPlanFinished);
    f.session.generate({{"user", "busy", {}}}, {});
    quint64 last = 0;
    for (int i = 0; i < 5; ++i)
        last = f.session.requestExactPlan("/models/a.gguf", {}, {});
    QTRY_COMPARE(exact.count(), 1);
    QCOMPARE(exact.first().first().value<ExactCheck>().requestId, last);
    QCOMPARE(f.worker->exactRuns.load(), 1);
    QCOMPARE(finished.count(), 1);
}

QTEST_GUILESS_MAIN(TestInferenceSession)
#include "tst_inferencesession.moc"
