#pragma once

#include "apiserver.h"
#include "chatsession.h"
#include "error.h"
#include "serverargs.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

// llama-server's router mode (--models-preset without -m), for a machine that holds one model at
// a time: the file's presets by name, one loaded. A request names its model ("model" in the
// body, ?model= for GET); the first request for a model that is not loaded waits for the
// requests of the loaded one to end, unloads it, and loads the named one with `load` (the
// caller's plan and fit for that preset). /v1/models lists every preset with its status;
// POST /models/load and /models/unload take {"model": NAME}, as llama-server's router does.
class ModelRouter
{
public:
    // `cancel` is raised by close(): a load still running then should end (Model::load's cancel).
    using Loader = std::function<Result<std::unique_ptr<ChatSession>>(const ServerPreset &preset,
                                                                      const std::atomic<bool> &cancel)>;

    // Binds the router's own --host, --port, keys and CORS (the presets' are not used for that).
    // Nothing is loaded yet.
    static Result<std::unique_ptr<ModelRouter>> open(const ServerArgs &router, std::vector<ServerPreset> presets,
                                                     Loader load);
    ~ModelRouter(); // close()
    ModelRouter(const ModelRouter &) = delete;
    ModelRouter &operator=(const ModelRouter &) = delete;

    // Ends open requests, cancels a load under way, stops the HTTP side and unloads the model.
    void close();
    std::string baseUrl() const;
    ApiStatus status() const;
    std::string loadedModel() const; // empty: none

    // What a request for `name` does first (InvalidArgument for a name not in the file).
    Error load(const std::string &name);
    // Unloads the loaded model once its requests have ended.
    void unload();

private:
    struct Impl;
    ModelRouter();
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
