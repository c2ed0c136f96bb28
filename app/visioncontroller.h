#pragma once

#include "chattypes.h"
#include "projector.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <optional>

class ChatController;
struct ModelSettings;

// Pairs vision projectors (mmproj) with models: finds them beside the model, remembers the
// choice per model, has the worker load the chosen one after every model load, and checks
// images before they are attached. Owned by ChatController.
class VisionController : public QObject
{
    Q_OBJECT
public:
    struct Candidate {
        QString path;
        QString precision; // from the file's tensors: "F16", "BF16", "F32"...
        shoehorn::Error mismatch; // set when the file is not for this model
    };

    explicit VisionController(ChatController *chat);

    const VisionSummary &vision() const;
    bool canSeeImages() const { return vision().ready; }
    // The name says it is a projector (mmproj*.gguf), not a model.
    static bool isProjectorFile(const QString &path);
    // mmproj*.gguf files beside `modelPath` (best first), each checked against the model.
    static QList<Candidate> candidates(const QString &modelPath);
    // The projector a model uses with these settings: the chosen file, the best matching one
    // beside it (automatic), or none.
    static QString resolve(const QString &modelPath, const ModelSettings &settings);
    // llama.cpp's dry run of the projector (weights and compute buffer), cached; 0 for none.
    quint64 memoryOf(const QString &projectorPath, bool offload);

    // The choice for the loaded model (a path, empty for automatic, ModelSettings::kNoProjector
    // for none), remembered per model; the worker loads it at once.
    void choose(const QString &choice, bool offload);

    // An image file's bytes, checked (format, size) before anything is decoded.
    static shoehorn::Result<ChatImage> imageFromBytes(const QByteArray &bytes);
    static shoehorn::Result<ChatImage> imageFromFile(const QString &path);

signals:
    void visionChanged(const VisionSummary &vision);

private:
    void onModelLoaded(const ModelSummary &summary);

    ChatController *m_chat;
    QHash<QString, quint64> m_memory; // path + offload -> bytes
};
