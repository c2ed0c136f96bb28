#pragma once

#include "apiserver.h"

#include <memory>
#include <mutex>
#include <optional>

namespace shoehorn {
class Model;
}

// Where the loaded model meets the local API. The worker (the model's one owner) publishes the
// model it loaded and withdraws it before it frees it; the API controller starts and stops
// llama.cpp's server on whatever model is published. Thread-safe: the worker thread, a pool
// thread (start/stop/status block for milliseconds to seconds) and the GUI thread all call in.
class ApiHost
{
public:
    ApiHost() = default;
    ~ApiHost();
    ApiHost(const ApiHost &) = delete;
    ApiHost &operator=(const ApiHost &) = delete;

    // Worker thread. A null model stops the server (it holds the model alive otherwise). A new
    // model restarts the server on it with the options it ran with; a failure there turns the
    // API off (wanted() empty) and is kept for lastError().
    // `projector` (an mmproj path, or empty) is what the chat reads images with: the server
    // loads its own copy of it, so image_url parts work through the API as well.
    void setModel(std::shared_ptr<shoehorn::Model> model, const shoehorn::ContextSettings &context,
                  const std::string &projector = {}, bool projectorOffload = true);

    // Starts (or restarts with new options) on the published model.
    shoehorn::Error start(const shoehorn::ApiServerOptions &options);
    void stop();
    bool running() const;
    // The wanted options while the API is on (also while no model is loaded), else nothing.
    std::optional<shoehorn::ApiServerOptions> wanted() const;
    std::optional<shoehorn::ApiStatus> status() const;
    shoehorn::Error lastError() const;

private:
    shoehorn::ApiServerOptions withProjector(shoehorn::ApiServerOptions options) const;

    mutable std::mutex m_mutex;
    std::shared_ptr<shoehorn::Model> m_model;
    shoehorn::ContextSettings m_context;
    std::string m_projector;
    bool m_projectorOffload = true;
    std::optional<shoehorn::ApiServerOptions> m_wanted;
    std::shared_ptr<shoehorn::ApiServer> m_server;
    shoehorn::Error m_lastError;
};
