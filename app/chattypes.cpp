#include "chattypes.h"

#include "tuningstore.h"

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
