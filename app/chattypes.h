#pragma once

#include "remote.h"
#include "chatsession.h"
#include "oomladder.h"
#include "autotune.h"
#include "planner.h"
#include "settings.h"

#include <QByteArray>
#include <QList>
#include <QMetaType>
#include <QString>

// What the GUI needs to know of a loaded model, copied out on the worker thread.
struct ModelSummary {
    QString path;
    QString name;
    QString architecture;
    QString quantization;
    quint64 fileSize = 0;
    quint64 parameterCount = 0;
    int layerCount = 0;
    int expertCount = 0;
    int expertUsedCount = 0;
    int contextSize = 0;
    int trainedContext = 0;
    bool supportsThinking = false;
    // Sampling values the GGUF suggests (general.sampling.*), over Shoehorn's defaults.
    bool hasSuggestedSampling = false;
    shoehorn::SamplingSettings suggestedSampling;
    shoehorn::LoadSettings load;       // what was used (after any out-of-memory retries)
    shoehorn::ContextSettings context;
    shoehorn::MemoryPlan measured; // what llama.cpp actually allocated
    shoehorn::HeldMemory held;     // what the load took from the machine (plans count it as free)
    shoehorn::SpeculationOff speculationOff; // why speculative decoding is off although asked for
    QString templateFallback; // why ChatML stands in for the model's chat template (llama.cpp's words)
};

// An image attached to a message: the file's own bytes (stored with the chat, never a path
// that can move) and its type.
struct ChatImage {
    QByteArray data;
    QString mime; // "image/png", "image/jpeg"...
    bool operator==(const ChatImage &o) const { return data == o.data && mime == o.mime; }
};

// A message as the model is given it, in Qt's types: its pictures' bytes are shared with the chat,
// not copied. The engine's copy (toEngineHistory) is made on the inference thread: for a photo it
// takes tens of milliseconds.
struct HistoryMessage {
    QString role; // "system", "user", "assistant"
    QString content;
    QString reasoning = {};
    QList<ChatImage> images = {};
};
using ChatHistory = QList<HistoryMessage>;
std::vector<shoehorn::ChatMessage> toEngineHistory(const ChatHistory &history);

// The vision projector (mmproj) the worker loaded for the model, or why it could not.
struct VisionSummary {
    QString path;          // empty: the model has none (or the user turned it off)
    QString precision;     // "F16", "BF16", "F32"...
    QString projectorType; // e.g. "qwen3vl_merger"
    bool offload = true;   // on the GPU (false: --no-mmproj-offload)
    bool ready = false;    // images can be sent
    shoehorn::Error error; // why not, when path is set
};

// llama.cpp's dry run of one set of settings (Worker::exactPlan), for the offload panel.
struct ExactCheck {
    quint64 requestId = 0;
    bool ok = false;
    shoehorn::MemoryPlan plan;
    shoehorn::Error error;
};

Q_DECLARE_METATYPE(ModelSummary)
Q_DECLARE_METATYPE(ExactCheck)
Q_DECLARE_METATYPE(VisionSummary)
Q_DECLARE_METATYPE(ChatImage)
Q_DECLARE_METATYPE(QList<ChatImage>)
Q_DECLARE_METATYPE(shoehorn::Error)
Q_DECLARE_METATYPE(shoehorn::HardwareInfo)
Q_DECLARE_METATYPE(shoehorn::PlanSettings)
Q_DECLARE_METATYPE(shoehorn::PlanTarget)
Q_DECLARE_METATYPE(shoehorn::GenerationStats)
Q_DECLARE_METATYPE(shoehorn::LoadSettings)
Q_DECLARE_METATYPE(shoehorn::ContextSettings)
Q_DECLARE_METATYPE(shoehorn::GenerationOptions)
Q_DECLARE_METATYPE(std::vector<shoehorn::ChatMessage>)
Q_DECLARE_METATYPE(shoehorn::OomRetry)
Q_DECLARE_METATYPE(shoehorn::AttachedRemotes)
Q_DECLARE_METATYPE(shoehorn::TuneRequest)

void registerShoehornMetaTypes();
