#pragma once

// A Worker without llama.cpp, for tests of what sits above the inference thread. It answers
// like the real one, on the session's thread: a path containing "refused" fails the file check
// before anything is dropped (loadRefused while a model is held, as the real worker), one
// containing "bad" fails after the old model went; other loads succeed. An answer streams
// `tokens` pieces of text `tokenMs` apart until done or cancelled.
#include "worker.h"

#include <QThread>

#include <atomic>
#include <memory>
#include <mutex>

class FakeWorker : public Worker
{
    Q_OBJECT
public:
    std::atomic<int> tokens{50};
    std::atomic<int> tokenMs{2};
    std::atomic<int> loadMs{0};
    std::atomic<int> loads{0};
    std::atomic<int> exactRuns{0};
    std::atomic<int> failAfter{-1}; // tokens, then a fatal decode error
    shoehorn::HeldMemory held;      // what a load reports (set before loading)
    std::atomic<bool> stuck{false}; // ignores Stop, as code inside llama.cpp would
    std::atomic<int> tuneMs{0};     // a tune measures this long (or until cancelled), then loads its model again
    // Tunes that loaded their model again; shared: the worker is deleted when its thread ends.
    std::shared_ptr<std::atomic<int>> resumes = std::make_shared<std::atomic<int>>(0);

    void loadModel(const QString &path, const shoehorn::LoadSettings &load,
                   const shoehorn::ContextSettings &context) override
    {
        ++loads;
        if (path.contains(QLatin1String("refused"))) {
            const shoehorn::Error e{shoehorn::ErrorCode::NotGguf, "the file does not start with the GGUF magic"};
            if (m_holding)
                emit loadRefused(e);
            else
                emit loadFailed(e);
            return;
        }
        m_holding = false; // the old model goes before the load
        for (int waited = 0; waited < loadMs; waited += 5) {
            if (loadCancelled()) {
                emit loadFailed({shoehorn::ErrorCode::Cancelled, "cancelled"});
                return;
            }
            QThread::msleep(5);
            emit loadProgress(double(waited) / double(loadMs));
        }
        emit loadProgress(1.0);
        if (path.contains(QLatin1String("bad"))) {
            emit loadFailed({shoehorn::ErrorCode::NotGguf, "not a GGUF file"});
            return;
        }
        ModelSummary s;
        s.path = path;
        s.name = path.section(QLatin1Char('/'), -1);
        s.contextSize = int(context.contextSize);
        m_contextSize = s.contextSize;
        s.load = load;
        s.context = context;
        s.held = held;
        m_holding = true;
        emit modelLoaded(s);
    }

    // The history the last answer was given (the engine's types, as the real worker gets them).
    std::vector<shoehorn::ChatMessage> lastHistory() const
    {
        std::lock_guard lock(m_historyMutex);
        return m_lastHistory;
    }

    void generate(quint64 id, const std::vector<shoehorn::ChatMessage> &history,
                  const shoehorn::GenerationOptions &) override
    {
        {
            std::lock_guard lock(m_historyMutex);
            m_lastHistory = history;
        }
        shoehorn::GenerationStats stats;
        stats.promptTokens = int(history.size());
        stats.stopReason = shoehorn::StopReason::EndOfGeneration;
        for (int i = 0; i < tokens; ++i) {
            if (generationCancelled() && !stuck) {
                stats.stopReason = shoehorn::StopReason::Cancelled;
                break;
            }
            if (i == failAfter) {
                emit generationFailed(id, {shoehorn::ErrorCode::DecodeFailed, "llama_decode returned -3"});
                return;
            }
            emit delta(id, QStringLiteral("w%1 ").arg(i), QString());
            ++stats.generatedTokens;
            QThread::msleep(unsigned(tokenMs.load()));
        }
        stats.contextUsed = 10 * stats.promptTokens + stats.generatedTokens; // grows with the chat
        stats.contextSize = m_contextSize;
        emit generationFinished(id, stats);
    }

    void autoTune(const shoehorn::TuneRequest &) override
    {
        for (int waited = 0; waited < tuneMs && !generationCancelled(); waited += 5)
            QThread::msleep(5);
        if (tuneMs > 0 && !resumeCancelled())
            ++*resumes;
        else if (resumeCancelled())
            m_holding = false; // not loaded again
        emit tuneFinished(TuneReport{});
    }

    // A projector whose path names "mmproj" reads images (the history's tests send some).
    void loadProjector(const QString &path, bool offload) override
    {
        if (!path.contains(QLatin1String("mmproj")))
            return Worker::loadProjector(path, offload);
        VisionSummary v;
        v.path = path;
        v.offload = offload;
        v.precision = QStringLiteral("F16");
        v.ready = true;
        emit visionChanged(v);
    }

    void exactPlan(quint64 id, const QString &, const shoehorn::PlanSettings &, const shoehorn::PlanTarget &) override
    {
        ++exactRuns;
        ExactCheck c;
        c.requestId = id;
        c.ok = true;
        emit exactPlanFinished(c);
    }

private:
    mutable std::mutex m_historyMutex;
    std::vector<shoehorn::ChatMessage> m_lastHistory;
    bool m_holding = false; // a model is loaded (on the worker's thread only)
    int m_contextSize = 0;   // of the model loaded last
};
