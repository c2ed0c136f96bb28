#include "modelinspector.h"

#include "workpool.h"

#include <QtConcurrent/QtConcurrentRun>

ModelInspector::ModelInspector(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, &ModelInspector::finished);
}

// Not waited for: the reading runs on a copy of the path and touches nothing of this object; its
// result is dropped with the watcher.
ModelInspector::~ModelInspector() = default;

void ModelInspector::inspect(const QString &path)
{
    m_wanted = path;
    if (m_pending && m_watcher.isRunning())
        return; // read next, when this one is done
    m_pending = true;
    m_watcher.setFuture(QtConcurrent::run(workPool(), [path] {
        Result out{path, std::nullopt, {}};
        auto r = shoehorn::inspectModel(path.toStdString());
        if (r)
            out.info = std::move(*r);
        else
            out.error = r.error();
        return out;
    }));
}

void ModelInspector::finished()
{
    const Result r = m_watcher.result();
    m_pending = false;
    if (r.path != m_wanted) {
        inspect(m_wanted);
        return;
    }
    emit inspected(r.path, r.info, r.error);
}
