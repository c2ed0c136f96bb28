#pragma once

// How long the GUI thread's event loop went without running: a 1 ms timer's largest gap between
// two ticks, less the millisecond. A frame is 16 ms; anything longer is a stutter a person sees.
// Wait with a real event loop meanwhile (QSignalSpy::wait, spin()), not QTest::qWait.
#include "sanitized.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QObject>
#include <QTimer>

class StallProbe : public QObject
{
public:
    // What the tests hold the longest stall to: a frame. A sanitized build's instrumented code
    // runs two to three times slower (22 ms measured where the release build takes under 16).
    static constexpr qint64 kFrameMs = kSanitizedBuild ? 48 : 16;

    StallProbe()
    {
        m_timer.setInterval(1);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            m_worst = std::max(m_worst, m_clock.restart() - 1);
        });
    }
    void start()
    {
        m_worst = 0;
        m_clock.start();
        m_timer.start();
    }
    qint64 worstMs() const { return m_worst; }
    // Runs the event loop for ms without sleeping between rounds (unlike QTest::qWait).
    static void spin(int ms)
    {
        QEventLoop loop;
        QTimer::singleShot(ms, &loop, &QEventLoop::quit);
        loop.exec();
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_worst = 0;
};
