#include "httpside.h"

#include "httpdoor.h"

#include <server-common.h>
#include <ui-status.h> // SHOEHORN_UI_MISSING_REASON, written by cmake/WebUi.cmake
#include <ui.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace shoehorn::internal {

namespace {

constexpr size_t kMaxErrors = 10;
constexpr size_t kMaxJsonDepth = 256;

const char *kNoUiPage = R"(<!doctype html>
<html><head><meta charset="utf-8"><title>Shoehorn local API</title></head>
<body style="font-family:sans-serif;max-width:44em;margin:2em auto">
<h1>Shoehorn local API</h1>
<p>This is llama.cpp's server, hosted by Shoehorn: it speaks the OpenAI API
(<code>/v1/chat/completions</code>, <code>/v1/completions</code>, <code>/v1/models</code>),
the Anthropic API (<code>/v1/messages</code>) and llama-server's own routes
(<code>/health</code>, <code>/metrics</code>, <code>/slots</code>, <code>/tokenize</code>).</p>
<p>%REASON%</p>
</body></html>
)";

// llama.cpp's request parsing throws std::runtime_error for what the client got wrong (a message
// without a role, tools that are not an array, an image with no projector loaded), which
// llama-server answers with 500: these are the client's, 400.
bool isClientMistake(const std::string &message)
{
    for (const char *start : {"Failed to parse messages: ", "Failed to parse tools: ", "image input is not supported",
                              "audio input is not supported"})
        if (message.rfind(start, 0) == 0)
            return true;
    return false;
}

// How deep a request body's JSON nests ([ and { outside strings), counted up to `limit` + 1.
// llama.cpp turns a JSON schema into a grammar (response_format, tools) by recursing once per
// level, in time that grows faster than the depth: a schema 1000 levels deep held an HTTP thread
// for seconds, 30000 for minutes. No request a client means nests that deep.
size_t jsonDepth(const std::string &body, size_t limit)
{
    size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (const char c : body) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit)
                break;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return deepest;
}

} // namespace

void RequestLog::noteRequest()
{
    std::lock_guard lock(m_mutex);
    ++m_requests;
}

void RequestLog::noteRefused(const std::string &what)
{
    {
        std::lock_guard lock(m_mutex);
        ++m_requests;
        ++m_refused;
    }
    noteError(what);
}

void RequestLog::noteError(const std::string &what)
{
    std::lock_guard lock(m_mutex);
    m_errors.push_back(what);
    while (m_errors.size() > kMaxErrors)
        m_errors.pop_front();
}

void RequestLog::fill(ApiStatus &status) const
{
    std::lock_guard lock(m_mutex);
    status.requests = m_requests;
    status.refused = m_refused;
    status.lastErrors.assign(m_errors.begin(), m_errors.end());
}

void configureDoor(common_params &params, server_http_context &http, const ApiServerOptions &options, RequestLog &log)
{
    params.hostname = options.host;
    params.port = options.port;
    params.api_keys = options.apiKeys;
    params.endpoint_metrics = options.metrics;
    params.cors_origins = options.corsOrigins;
    http.shoehorn_hosts = allowedHostsFor(options.host);
    http.shoehorn_refused = [&log](const std::string &method, const std::string &path, int status,
                                   const std::string &why, const std::string &from) {
        log.noteRefused(method + " " + path + ": " + std::to_string(status) + " " + why + " (from " + from + ")");
    };
}

server_http_res_ptr errorResponse(const std::string &message, int type)
{
    auto res = std::make_unique<server_http_res>();
    json body = format_error_response(message, error_type(type));
    res->status = json_value(body, "code", 500);
    res->data = safe_json_to_str({{"error", body}});
    return res;
}

server_http_context::handler_t wrapHandler(RequestLog &log, const server_http_context &http, const std::string &method,
                                           const std::string &path, server_http_context::handler_t handler)
{
    return [&log, &http, method, path, handler](const server_http_req &req) -> server_http_res_ptr {
        log.noteRequest();
        server_http_res_ptr res;
        std::string message;
        error_type type = ERROR_TYPE_SERVER;
        try {
            if (jsonDepth(req.body, kMaxJsonDepth) > kMaxJsonDepth)
                throw std::invalid_argument("the request's JSON nests more than " + std::to_string(kMaxJsonDepth) +
                                            " levels deep");
            res = handler(req);
        } catch (const std::invalid_argument &e) {
            type = ERROR_TYPE_INVALID_REQUEST;
            message = e.what();
        } catch (const common_json_error &e) {
            // llama-server answers 500 here; the client sent JSON that is not valid or lacks a
            // field, so 400 says it better
            type = ERROR_TYPE_INVALID_REQUEST;
            message = std::string("the request body is not valid JSON for this route: ") + e.what();
        } catch (const std::out_of_range &e) {
            // A token id or index the request gave (/detokenize [999999999]): the client's, and
            // the C++ library's words say nothing to it.
            type = ERROR_TYPE_INVALID_REQUEST;
            message = "a token id or an index in the request is out of range";
        } catch (const std::exception &e) {
            message = e.what();
            if (isClientMistake(message))
                type = ERROR_TYPE_INVALID_REQUEST;
        } catch (...) {
            message = "unknown error";
        }
        if (!res) {
            res = errorResponse(message, type);
        } else if (http.shoehorn_stopping.load() && !res->is_stream() && res->status == 200 && res->data.empty()) {
            // A request still waiting when the server stopped: llama-server returns an empty 200
            // (it assumes the client left); say what happened instead.
            res = errorResponse("the server is shutting down", ERROR_TYPE_UNAVAILABLE);
        }
        if (res->status >= 400) {
            std::string detail = res->data.substr(0, 300);
            try {
                detail = json::parse(res->data).at("error").value("message", detail);
            } catch (...) {
            }
            log.noteError(method + " " + path + ": " + std::to_string(res->status) + " " + detail);
        }
        return res;
    };
}

bool webUiBuiltIn()
{
    return !llama_ui_get_assets().empty();
}

std::string webUiMissingReason()
{
    const std::string reason = SHOEHORN_UI_MISSING_REASON;
    return reason.empty() && !webUiBuiltIn() ? "this build has no web UI" : reason;
}

void addIndexRoutes(const server_http_context &http, bool webUi)
{
    if (!webUi)
        return; // --no-ui: nothing at "/", which answers 404 as llama-server's does
    if (webUiBuiltIn())
        return; // llama.cpp's own routes serve it (server_http_context::init)
    std::string page = kNoUiPage;
    const std::string reason = "llama.cpp's web chat is not built into this Shoehorn (" + webUiMissingReason() +
                               "). Chat in the Shoehorn window, or point any OpenAI-compatible client at this address.";
    page.replace(page.find("%REASON%"), 8, reason);
    http.get("/", [page](const server_http_req &) {
        auto res = std::make_unique<server_http_res>();
        res->content_type = "text/html; charset=utf-8";
        res->data = page;
        return res;
    });
}

} // namespace shoehorn::internal
