#include "apiserver.h"

#include "guarded.h"

#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "model.h"

#include <server-common.h>
#include <server-context.h>
#include <server-http.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

namespace shoehorn {

namespace {

constexpr size_t kMaxErrors = 10;

llama_flash_attn_type flashType(FlashAttention f)
{
    switch (f) {
    case FlashAttention::On: return LLAMA_FLASH_ATTN_TYPE_ENABLED;
    case FlashAttention::Off: return LLAMA_FLASH_ATTN_TYPE_DISABLED;
    case FlashAttention::Auto: break;
    }
    return LLAMA_FLASH_ATTN_TYPE_AUTO;
}

// llama-server's parameters for what Shoehorn's settings and the API options say. The model's
// placement (-ngl, --n-cpu-moe) is not here: the model is loaded already.
common_params serverParams(const Model &model, const ContextSettings &c, const ApiServerOptions &o)
{
    common_params p;
    p.model.path = model.info().path;
    p.hostname = o.host;
    p.port = o.port;
    if (!o.apiKey.empty())
        p.api_keys = {o.apiKey};
    p.n_parallel = o.parallel;
    p.kv_unified = false; // llama-server's default: every slot has its own contextPerSlot cells
    p.n_ctx = int32_t(o.contextPerSlot) * o.parallel;
    p.n_batch = int32_t(c.batchSize);
    p.n_ubatch = int32_t(c.ubatchSize);
    p.cache_type_k = kvCacheType(c.typeK);
    p.cache_type_v = kvCacheType(c.typeV);
    p.flash_attn_type = flashType(c.flashAttention);
    const int threads = c.threads > 0 ? c.threads : physicalCoreCount();
    p.cpuparams.n_threads = threads;
    p.cpuparams_batch.n_threads = c.threadsBatch > 0 ? c.threadsBatch : threads;
    p.endpoint_metrics = o.metrics;
    p.endpoint_slots = true;
    p.ctx_shift = o.contextShift;
    p.ui = false;            // no embedded web UI in this build: `/` is our page
    p.fit_params = false;    // Shoehorn planned and placed the model already
    p.warmup = false;        // the model is warm: the chat context ran on it
    p.cache_ram_mib = 0;     // no host-RAM prompt cache beyond the slots: memory stays as planned
    p.sleep_idle_seconds = -1;
    const std::string alias = o.modelAlias.empty()
                                  ? std::filesystem::path(model.info().path).filename().string()
                                  : o.modelAlias;
    p.model_alias = {alias};
    p.mmproj.path = o.mmproj;
    p.mmproj_use_gpu = o.mmprojOffload;
    return p;
}

const char *kIndexPage = R"(<!doctype html>
<html><head><meta charset="utf-8"><title>Shoehorn local API</title></head>
<body style="font-family:sans-serif;max-width:44em;margin:2em auto">
<h1>Shoehorn local API</h1>
<p>This is llama.cpp's server, hosted by Shoehorn: it speaks the OpenAI API
(<code>/v1/chat/completions</code>, <code>/v1/completions</code>, <code>/v1/models</code>),
the Anthropic API (<code>/v1/messages</code>) and llama-server's own routes
(<code>/health</code>, <code>/metrics</code>, <code>/slots</code>, <code>/tokenize</code>).</p>
<p>llama.cpp's web chat is not built into Shoehorn: it needs the llama.cpp web UI's npm
toolchain, or a prebuilt copy from Hugging Face, neither of which a Shoehorn build fetches.
Chat in the Shoehorn window, or point any OpenAI-compatible client at this address.</p>
</body></html>
)";

} // namespace

struct ApiServer::Impl {
    std::shared_ptr<Model> model;
    common_params params;
    std::unique_ptr<CpuThreadPools> pools; // declared before `server`: outlives its context
    server_context server;
    server_http_context http;
    std::unique_ptr<server_routes> routes;
    std::thread loop;
    // Held by stop() and by status()'s in-process /slots call: that call waits on the task
    // queue, which stop() terminates.
    mutable std::mutex lifecycle;
    bool stopped = false;

    mutable std::mutex mutex;
    uint64_t requests = 0;
    std::deque<std::string> errors;
    struct Rate {
        int decoded = 0;
        std::chrono::steady_clock::time_point at;
        double tps = 0;
    };
    mutable std::map<int, Rate> rates;

    void noteError(const std::string &what)
    {
        std::lock_guard lock(mutex);
        errors.push_back(what);
        while (errors.size() > kMaxErrors)
            errors.pop_front();
    }

    // llama-server's ex_wrapper (exceptions become error bodies) plus our counters.
    server_http_context::handler_t wrap(const std::string &method, const std::string &path,
                                        server_http_context::handler_t handler)
    {
        return [this, method, path, handler](const server_http_req &req) -> server_http_res_ptr {
            {
                std::lock_guard lock(mutex);
                ++requests;
            }
            server_http_res_ptr res;
            std::string message;
            error_type type = ERROR_TYPE_SERVER;
            try {
                res = handler(req);
            } catch (const std::invalid_argument &e) {
                type = ERROR_TYPE_INVALID_REQUEST;
                message = e.what();
            } catch (const common_json_error &e) {
                // llama-server answers 500 here; the client sent JSON that is not valid or lacks
                // a field, so 400 says it better
                type = ERROR_TYPE_INVALID_REQUEST;
                message = std::string("the request body is not valid JSON for this route: ") + e.what();
            } catch (const std::exception &e) {
                message = e.what();
            } catch (...) {
                message = "unknown error";
            }
            if (!res) {
                res = std::make_unique<server_http_res>();
                json body = format_error_response(message, type);
                res->status = json_value(body, "code", 500);
                res->data = safe_json_to_str({{"error", body}});
            } else if (shoehorn_server_stopping.load() && !res->is_stream() && res->status == 200 &&
                       res->data.empty()) {
                // A request still waiting when the server stopped: llama-server returns an empty
                // 200 (it assumes the client left); say what happened instead.
                json body = format_error_response("the server is shutting down", ERROR_TYPE_UNAVAILABLE);
                res->status = json_value(body, "code", 503);
                res->data = safe_json_to_str({{"error", body}});
            }
            if (res->status >= 400) {
                std::string detail = res->data.substr(0, 300);
                try {
                    detail = json::parse(res->data).at("error").value("message", detail);
                } catch (...) {
                }
                noteError(method + " " + path + ": " + std::to_string(res->status) + " " + detail);
            }
            return res;
        };
    }

    void addRoutes()
    {
        auto &r = *routes;
        const auto get = [this](const std::string &path, const server_http_context::handler_t &h) {
            http.get(path, wrap("GET", path, h));
        };
        const auto post = [this](const std::string &path, const server_http_context::handler_t &h) {
            http.post(path, wrap("POST", path, h));
        };
        http.get("/health", r.get_health); // public (no key), not counted
        http.get("/v1/health", r.get_health);
        http.get("/", [](const server_http_req &) {
            auto res = std::make_unique<server_http_res>();
            res->content_type = "text/html; charset=utf-8";
            res->data = kIndexPage;
            return res;
        });
        get("/metrics", r.get_metrics);
        get("/props", r.get_props);
        get("/models", r.get_models);
        get("/v1/models", r.get_models);
        get("/slots", r.get_slots);
        post("/completion", r.post_completions);
        post("/completions", r.post_completions);
        post("/v1/completions", r.post_completions_oai);
        post("/chat/completions", r.post_chat_completions);
        post("/v1/chat/completions", r.post_chat_completions);
        post("/v1/responses", r.post_responses_oai);
        post("/v1/messages", r.post_anthropic_messages);
        post("/v1/messages/count_tokens", r.post_anthropic_count_tokens);
        post("/v1/chat/completions/input_tokens", r.post_chat_completions_tok);
        post("/infill", r.post_infill);
        post("/tokenize", r.post_tokenize);
        post("/detokenize", r.post_detokenize);
        post("/apply-template", r.post_apply_template);
        post("/embedding", r.post_embeddings);
        post("/embeddings", r.post_embeddings);
        post("/v1/embeddings", r.post_embeddings_oai);
    }
};

ApiServer::ApiServer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

ApiServer::~ApiServer()
{
    stop();
}

Error ApiServer::checkOptions(const ApiServerOptions &o)
{
    if (o.host.empty())
        return Error{ErrorCode::InvalidArgument, "--host: empty"};
    if (o.port < 0 || o.port > 65535)
        return Error{ErrorCode::InvalidArgument, "--port " + std::to_string(o.port) + ": must be 1-65535"};
    if (o.parallel < 1 || o.parallel > 256)
        return Error{ErrorCode::InvalidArgument, "--parallel " + std::to_string(o.parallel) + ": must be 1-256"};
    if (o.contextPerSlot < 256)
        return Error{ErrorCode::InvalidArgument,
                     "context per slot " + std::to_string(o.contextPerSlot) + ": must be at least 256 tokens"};
    if (!isLoopback(o.host) && o.apiKey.empty())
        return Error{ErrorCode::InvalidArgument,
                     "--host " + o.host + " is reachable from other machines: set an API key first"};
    if (o.apiKey.find_first_of(" \t\r\n") != std::string::npos)
        return Error{ErrorCode::InvalidArgument, "the API key contains white space"};
    return {};
}

bool ApiServer::isLoopback(const std::string &host)
{
    if (host == "localhost" || host == "::1" || host == "[::1]")
        return true;
    in_addr a{};
    if (inet_pton(AF_INET, host.c_str(), &a) == 1)
        return (ntohl(a.s_addr) >> 24) == 127;
    return false;
}

std::string ApiServer::generateKey()
{
    unsigned char bytes[32] = {};
    std::ifstream random("/dev/urandom", std::ios::binary);
    random.read(reinterpret_cast<char *>(bytes), sizeof bytes);
    if (random.gcount() != sizeof bytes)
        return {}; // no entropy source: the caller reports it rather than using a weak key
    std::string key = "sk-shoehorn-";
    char hex[3];
    for (unsigned char b : bytes) {
        std::snprintf(hex, sizeof hex, "%02x", b);
        key += hex;
    }
    return key;
}

bool ApiServer::portFree(const std::string &host, int port)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    addrinfo *list = nullptr;
    const std::string service = std::to_string(port);
    if (getaddrinfo(host.c_str(), service.c_str(), &hints, &list) != 0 || !list)
        return false;
    bool ok = false;
    for (addrinfo *a = list; a && !ok; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); // as cpp-httplib binds
        ok = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
        ::close(fd);
    }
    freeaddrinfo(list);
    return ok;
}

int ApiServer::freePortAfter(const std::string &host, int port)
{
    for (int p = port + 1; p <= std::min(65535, port + 200); ++p)
        if (portFree(host, p))
            return p;
    return 0;
}

Result<std::unique_ptr<ApiServer>> ApiServer::start(std::shared_ptr<Model> model,
                                                    const ContextSettings &context,
                                                    const ApiServerOptions &options)
{
    return internal::guarded(ErrorCode::ServeFailed, [&]() -> Result<std::unique_ptr<ApiServer>> {
        if (!model)
            return Error{ErrorCode::NoModel, {}};
        if (Error e = checkOptions(options))
            return e;
        auto impl = std::make_unique<Impl>();
        impl->model = std::move(model);
        impl->params = serverParams(*impl->model, context, options);
        if (!impl->http.init(impl->params))
            return Error{ErrorCode::ServeFailed, "llama.cpp's HTTP server could not be set up"};
        impl->routes = std::make_unique<server_routes>(impl->params, impl->server);
        impl->addRoutes();
        if (!impl->http.start())
            return Error{ErrorCode::AddressInUse, options.host + ":" + std::to_string(options.port) +
                                                      " cannot be bound (in use by another program?)"};
        const auto failStarted = [&impl](Error e) {
            impl->http.stop();
            if (impl->http.thread.joinable())
                impl->http.thread.join();
            return e;
        };
        const bool loaded = impl->server.load_model_shared(impl->params, internal::llamaModel(*impl->model));
        // llama-server points libmtmd's log at its own logger when it loads a projector: take it back.
        LogCapture::reinstallLogger();
        if (!loaded && !options.mmproj.empty())
            return failStarted(Error{ErrorCode::ProjectorFailed, "llama.cpp's server could not load the vision projector " +
                                                                     options.mmproj});
        if (!loaded)
            return failStarted(Error{ErrorCode::ContextFailed,
                                     "llama.cpp could not create the API's context (" +
                                         std::to_string(impl->params.n_ctx) + " tokens for " +
                                         std::to_string(options.parallel) + " slots)"});
        // Persistent CPU thread pools as the chat context has (about 10 % of generation speed).
        impl->pools = std::make_unique<CpuThreadPools>(context);
        impl->pools->attach(impl->server.get_llama_context());
        impl->routes->update_meta(impl->server);
        Impl *raw = impl.get();
        impl->loop = std::thread([raw] { raw->server.start_loop(); });
        impl->http.is_ready.store(true); // requests wait for the loop, not the other way round
        return std::unique_ptr<ApiServer>(new ApiServer(std::move(impl)));
    });
}

void ApiServer::stop()
{
    if (!m_impl)
        return;
    std::lock_guard life(m_impl->lifecycle);
    if (m_impl->stopped)
        return;
    m_impl->stopped = true;
    // Stop accepting, and end every open request (cmake/LlamaServer.cmake: should_stop sees the
    // flag within llama-server's 1 s polling): streams end, waiting requests get no answer and
    // their readers cancel their tasks. Then the task loop, then the HTTP threads. Without the
    // flag a client that stays connected would hold the HTTP threads forever.
    shoehorn_server_stopping.store(true);
    m_impl->http.stop();
    if (m_impl->http.thread.joinable())
        m_impl->http.thread.join();
    m_impl->server.terminate();
    if (m_impl->loop.joinable())
        m_impl->loop.join();
    shoehorn_server_stopping.store(false);
}

int ApiServer::port() const
{
    return m_impl->http.port;
}

std::string ApiServer::baseUrl() const
{
    std::string host = m_impl->params.hostname;
    if (host == "0.0.0.0" || host == "::")
        host = "127.0.0.1";
    if (host.find(':') != std::string::npos && host.front() != '[')
        host = "[" + host + "]";
    return "http://" + host + ":" + std::to_string(port());
}

ApiStatus ApiServer::status() const
{
    ApiStatus s;
    s.baseUrl = baseUrl();
    {
        std::lock_guard lock(m_impl->mutex);
        s.requests = m_impl->requests;
        s.lastErrors.assign(m_impl->errors.begin(), m_impl->errors.end());
    }
    std::lock_guard life(m_impl->lifecycle);
    if (m_impl->stopped)
        return s;
    // llama-server's own /slots answer, asked in-process (it goes through the task queue).
    const std::function<bool()> never = [] { return false; };
    server_http_req req{{}, {}, "/slots", "", "", {}, never};
    json slots;
    try {
        auto res = m_impl->routes->get_slots(req);
        if (res && res->status == 200)
            slots = json::parse(res->data);
    } catch (...) {
        return s;
    }
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_impl->mutex);
    for (const auto &j : slots) {
        ApiSlot slot;
        slot.id = j.value("id", 0);
        slot.busy = j.value("is_processing", false);
        slot.contextTokens = j.value("n_ctx", 0);
        slot.promptTokens = j.value("n_prompt_tokens", 0);
        if (j.contains("next_token") && !j["next_token"].empty())
            slot.generatedTokens = j["next_token"][0].value("n_decoded", 0);
        auto &rate = m_impl->rates[slot.id];
        const double dt = std::chrono::duration<double>(now - rate.at).count();
        if (rate.at.time_since_epoch().count() != 0 && dt > 0.05) {
            const int delta = slot.generatedTokens - rate.decoded;
            rate.tps = (slot.busy && delta > 0) ? delta / dt : 0.0;
        }
        if (dt > 0.05 || rate.at.time_since_epoch().count() == 0) {
            rate.decoded = slot.generatedTokens;
            rate.at = now;
        }
        slot.tokensPerSecond = slot.busy ? rate.tps : 0.0;
        s.slotStates.push_back(slot);
    }
    return s;
}

} // namespace shoehorn
