#pragma once

#include "chattypes.h"
#include "projector.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QString>

#include <optional>

class LoadedModel;
class InferenceSession;
struct ModelSettings;

// Pairs vision projectors (mmproj) with models: finds them beside the model, remembers the
// choice per model, has the worker load the chosen one after every model load, and checks
// images before they are attached. AppCore makes it.
class VisionController : public QObject
{
    Q_OBJECT
public:
    struct Candidate {
        QString path;
        QString precision; // from the file's tensors: "F16", "BF16", "F32"...
        shoehorn::Error mismatch; // set when the file is not for this model
    };

    VisionController(LoadedModel *model, InferenceSession *session, QObject *parent = nullptr);

    const VisionSummary &vision() const;
    bool canSeeImages() const { return vision().ready; }
    // The name says it is a projector (mmproj*.gguf), not a model.
    static bool isProjectorFile(const QString &path);
    // mmproj*.gguf files beside `modelPath` (best first), each checked against the model.
    static QList<Candidate> candidates(const QString &modelPath);
    // What the planner and the menus need of the projector a model would use with a choice
    // (ModelSettings::projector): the file (empty: none), its precision, the tokens of a
    // 1024x1024 picture, llama.cpp's dry run of it on the GPU and on the CPU, and the files beside
    // the model. Found on a pool thread (it reads files, runs the helper's check and libmtmd's
    // dry run): nothing until then, and factsReady() when they are known.
    struct Facts {
        QString projector;
        QString precision;
        int tokens1024 = 0;
        quint64 gpuBytes = 0;
        quint64 cpuBytes = 0;
        QList<Candidate> candidates;
        quint64 bytes(bool onGpu) const { return onGpu ? gpuBytes : cpuBytes; }
    };
    std::optional<Facts> facts(const QString &modelPath, const QString &choice);

    // The choice for the loaded model (a path, empty for automatic, ModelSettings::kNoProjector
    // for none), remembered per model; the worker loads it at once.
    void choose(const QString &choice, bool offload);

    // An image file's bytes, checked (format, size) before anything is decoded.
    static shoehorn::Result<ChatImage> imageFromBytes(const QByteArray &bytes);
    static shoehorn::Result<ChatImage> imageFromFile(const QString &path);
    // Whether the bytes are PNG, JPEG, GIF or BMP (by their first bytes): kept as they are in a chat.
    static bool isChatImageFormat(const QByteArray &bytes);

signals:
    void visionChanged(const VisionSummary &vision);
    void factsReady();

private:
    static Facts findFacts(const QString &modelPath, const QString &choice);
    void onModelLoaded(const ModelSummary &summary);
    // Has the worker load what the loaded model's choice resolves to, once that is known.
    void applyChoice();

    LoadedModel *m_model;
    InferenceSession *m_session;
    QHash<QString, Facts> m_facts; // model path + choice
    QSet<QString> m_finding;
    bool m_applyPending = false;
};
