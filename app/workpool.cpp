#include "workpool.h"

#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>

#include <algorithm>

// As Qt does for its global pool in ~QCoreApplication: the jobs end while the application and
// Qt's statics are still there, not during the process's static destruction (a job left
// running then used what had gone).

QThreadPool *workPool()
{
    // At least four: a probe of a remote machine waits (up to 5 s) rather than computes.
    static QThreadPool pool;
    static const bool sized = [] {
        pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        qAddPostRoutine([] {
            workPool()->clear();
            workPool()->waitForDone();
        });
        return true;
    }();
    (void) sized;
    return &pool;
}

QThreadPool *writePool()
{
    static QThreadPool pool;
    static const bool sized = [] {
        pool.setMaxThreadCount(2);
        qAddPostRoutine([] { writePool()->waitForDone(); });
        return true;
    }();
    (void) sized;
    return &pool;
}
