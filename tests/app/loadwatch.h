#pragma once
// One model load's signals, watched from before it starts (the OOM ladder tests).
#include "loadedmodel.h"
#include "oomladder.h"

#include <QSignalSpy>
#include <QtTest>

#include <string>

struct LoadWatch {
    explicit LoadWatch(LoadedModel &c)
        : loaded(&c, &LoadedModel::modelLoaded), failed(&c, &LoadedModel::loadFailed),
          retrying(&c, &LoadedModel::loadRetrying)
    {
    }
    // Why the first retry happened ("RPC0 buffer of N bytes"), for a failure message.
    QByteArray retried() const
    {
        if (retrying.isEmpty())
            return {};
        return QByteArray::fromStdString(firstRetry().failure.buffer + " buffer of " +
                                         std::to_string(firstRetry().failure.bytes) + " bytes");
    }
    shoehorn::OomRetry firstRetry() const { return retrying.first().at(0).value<shoehorn::OomRetry>(); }
    // Waits until the load ends: empty when the model loaded, else what went wrong.
    QByteArray wait()
    {
        if (!QTest::qWaitFor([this] { return loaded.count() + failed.count() > 0; }, 120000))
            return "the load did not end within 120 s";
        return failed.isEmpty() ? QByteArray() : QByteArray(failed.first().at(0).value<shoehorn::Error>().detail.c_str());
    }
    ModelSummary summary() const { return loaded.first().at(0).value<ModelSummary>(); }
    QSignalSpy loaded;
    QSignalSpy failed;
    QSignalSpy retrying;
};
