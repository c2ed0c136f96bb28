#pragma once

class ApiController;
class ChatController;
class ConversationList;
class ConversationRepository;
class LoadedModel;
class ModelLibrary;
class OffloadController;
class RemoteMachines;
class TuningController;
class VisionController;

// What the window works with, each object by name: the window hands each widget its own from
// these, and depends on nothing else of the app core (not on AppCore, which builds and owns them).
struct WindowParts {
    LoadedModel *model = nullptr;
    ChatController *chat = nullptr;
    ConversationRepository *history = nullptr;
    ConversationList *conversations = nullptr; // null when the history could not be opened
    ModelLibrary *library = nullptr;
    OffloadController *offload = nullptr;
    TuningController *tuning = nullptr;
    VisionController *vision = nullptr;
    ApiController *api = nullptr;
    RemoteMachines *remote = nullptr;
};
