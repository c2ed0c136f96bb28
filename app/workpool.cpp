#include "workpool.h"

#include <QThread>
#include <QThreadPool>

#include <algorithm>

QThreadPool *workPool()
{
    // At least four: a probe of a remote machine waits (up to 5 s) rather than computes.
    static QThreadPool pool;
    static const bool sized = [] {
        pool.setMaxThreadCount(std::max(4, QThread::idealThreadCount()));
        return true;
    }();
    (void) sized;
    return &pool;
}
