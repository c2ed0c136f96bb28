#pragma once

#include "error.h"
#include "modelinfo.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <optional>

Q_DECLARE_METATYPE(std::optional<shoehorn::ModelInfo>)

// Reads a model file's GGUF header off the GUI thread (ggml's gguf reader and Shoehorn's
// checks, no backend), one file at a time: a path asked for while another is read is read next,
// and only the newest path's result is reported.
class ModelInspector : public QObject
{
    Q_OBJECT
public:
    explicit ModelInspector(QObject *parent = nullptr);
    ~ModelInspector() override; // does not wait: a read in flight finishes on its own

    void inspect(const QString &path);
    // Until the result is taken in, not only while the thread runs: between the two the future
    // is finished and the model unknown.
    bool busy() const { return m_pending; }

signals:
    // The file's metadata, or why it cannot be read (`info` empty; `error` typed, its words are
    // the UI's: ErrorText).
    void inspected(const QString &path, const std::optional<shoehorn::ModelInfo> &info, const shoehorn::Error &error);

private:
    struct Result {
        QString path;
        std::optional<shoehorn::ModelInfo> info;
        shoehorn::Error error;
    };
    void finished();

    QFutureWatcher<Result> m_watcher;
    QString m_wanted;
    bool m_pending = false;
};
