#include "chattypes.h"

#include "tuningstore.h"

std::vector<shoehorn::ChatMessage> toEngineHistory(const ChatHistory &history)
{
    std::vector<shoehorn::ChatMessage> out;
    out.reserve(size_t(history.size()));
    for (const HistoryMessage &m : history) {
        shoehorn::ChatMessage cm{m.role.toStdString(), m.content.toStdString(), m.reasoning.toStdString()};
        for (const ChatImage &img : m.images)
            cm.images.push_back({img.data.toStdString()});
        out.push_back(std::move(cm));
    }
    return out;
}

void registerShoehornMetaTypes()
{
    qRegisterMetaType<ModelSummary>();
    qRegisterMetaType<shoehorn::GenerationStats>();
    qRegisterMetaType<shoehorn::LoadSettings>();
    qRegisterMetaType<shoehorn::ContextSettings>();
    qRegisterMetaType<shoehorn::GenerationOptions>();
    qRegisterMetaType<std::vector<shoehorn::ChatMessage>>();
    qRegisterMetaType<shoehorn::OomRetry>();
    qRegisterMetaType<shoehorn::TuneRequest>();
    qRegisterMetaType<TuneReport>();
    qRegisterMetaType<ExactCheck>();
    qRegisterMetaType<shoehorn::AttachedRemotes>();
    qRegisterMetaType<VisionSummary>();
    qRegisterMetaType<shoehorn::Error>();
    qRegisterMetaType<shoehorn::HardwareInfo>();
    qRegisterMetaType<shoehorn::PlanSettings>();
    qRegisterMetaType<shoehorn::PlanTarget>();
}
