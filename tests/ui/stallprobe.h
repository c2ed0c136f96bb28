#pragma once

// How long the GUI thread's event loop went without running: a 1 ms timer's largest gap between
// two ticks, less the millisecond. A frame is 16 ms; anything longer is a stutter a person sees.
// Wait with a real event loop meanwhile (QSignalSpy::wait, spin()), not QTest::qWait.
//
// On two cores with ctest running tests side by side, the GUI thread is also kept off the CPU by
// other programs. The kernel counts that time (/proc/thread-self/schedstat: nanoseconds spent
// runnable, waiting for a CPU), and worstMs() leaves it out: what remains is the thread's own
// work and its own waits (a lock, a semaphore, a file), which is what the window is responsible
// for. worstWallMs() is the plain gap, for the log.
#include "sanitized.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QObject>
#include <QTimer>

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

class StallProbe : public QObject
{
public:
    // What the tests hold the longest stall to: a frame. A sanitized build's instrumented code
    // runs two to three times slower (22 ms measured where the release build takes under 16).
    static constexpr qint64 kFrameMs = kSanitizedBuild ? 48 : 16;

    // Made on the thread it watches (the GUI thread).
    StallProbe() : m_schedstat(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC))
    {
        m_timer.setInterval(1);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 gapNs = m_clock.nsecsElapsed();
            m_clock.restart();
            const qint64 runQueueNs = runQueueWaitNs();
            const qint64 offCpuNs = runQueueNs - m_lastRunQueueNs;
            m_lastRunQueueNs = runQueueNs;
            m_worstWall = std::max(m_worstWall, gapNs / 1000000 - 1);
            if ((gapNs - offCpuNs) / 1000000 - 1 > m_worst) {
                m_worst = (gapNs - offCpuNs) / 1000000 - 1;
                m_worstEndMs = m_sinceStart.elapsed(); // where it was, for a stall that is rare
            }
        });
    }
    ~StallProbe() override
    {
        if (m_schedstat >= 0)
            ::close(m_schedstat);
    }
    void start()
    {
        m_worst = m_worstWall = m_worstEndMs = 0;
        m_lastRunQueueNs = runQueueWaitNs();
        m_clock.start();
        m_sinceStart.start();
        m_timer.start();
    }
    // The longest gap less the time the thread waited for a CPU during it.
    qint64 worstMs() const { return m_worst; }
    // The longest gap as a clock on the wall saw it.
    qint64 worstWallMs() const { return m_worstWall; }
    // When the longest gap (worstMs) ended, in ms after start().
    qint64 worstEndMs() const { return m_worstEndMs; }
    // Logs the longest stall "while <what>" and whether it was at most `limitMs` (a frame).
    bool within(const QString &what, qint64 limitMs = kFrameMs) const
    {
        qInfo("longest GUI-thread stall while %s: %lld ms, ending %lld ms after the start (%lld ms on the wall clock)",
              qPrintable(what), m_worst, m_worstEndMs, m_worstWall);
        return m_worst <= limitMs;
    }
    // Runs the event loop for ms without sleeping between rounds (unlike QTest::qWait).
    static void spin(int ms)
    {
        QEventLoop loop;
        QTimer::singleShot(ms, &loop, &QEventLoop::quit);
        loop.exec();
    }
    // Runs the event loop until `done()` holds (checked every millisecond) or ms have passed;
    // whether it holds. QTRY_VERIFY would sleep 10 ms between its checks, which the probe sees.
    template <class Predicate>
    static bool waitFor(Predicate done, int ms = 20000)
    {
        QEventLoop loop;
        QTimer check;
        check.setInterval(1);
        connect(&check, &QTimer::timeout, &loop, [&] {
            if (done())
                loop.quit();
        });
        QTimer::singleShot(ms, &loop, &QEventLoop::quit);
        check.start();
        if (!done())
            loop.exec();
        return done();
    }

private:
    // The second field of schedstat; 0 where the kernel does not keep it (then worstMs() is the
    // wall gap).
    qint64 runQueueWaitNs() const
    {
        char buf[96];
        if (m_schedstat < 0 || ::lseek(m_schedstat, 0, SEEK_SET) != 0)
            return 0;
        const ssize_t n = ::read(m_schedstat, buf, sizeof buf - 1);
        if (n <= 0)
            return 0;
        buf[n] = '\0';
        unsigned long long onCpu = 0, waiting = 0;
        return std::sscanf(buf, "%llu %llu", &onCpu, &waiting) == 2 ? qint64(waiting) : 0;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    QElapsedTimer m_sinceStart;
    int m_schedstat;
    qint64 m_lastRunQueueNs = 0;
    qint64 m_worst = 0;
    qint64 m_worstWall = 0;
    qint64 m_worstEndMs = 0;
};
