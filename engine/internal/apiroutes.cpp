#include "apiroutes.h"

#include "httpside.h"

#include <server-common.h>
#include <server-stream.h>

namespace shoehorn::internal {

const std::vector<RouteSpec> &apiRouteTable()
{
    using R = server_routes;
    static const std::vector<RouteSpec> table = {
        {RouteSpec::Get, "/metrics", &R::get_metrics},
        {RouteSpec::Get, "/props", &R::get_props},
        {RouteSpec::Post, "/props", &R::post_props},
        {RouteSpec::Get, "/models", &R::get_models},
        {RouteSpec::Get, "/v1/models", &R::get_models},
        {RouteSpec::Post, "/completion", &R::post_completions},
        {RouteSpec::Post, "/completions", &R::post_completions},
        {RouteSpec::Post, "/v1/completions", &R::post_completions_oai},
        {RouteSpec::Post, "/chat/completions", &R::post_chat_completions},
        {RouteSpec::Post, "/v1/chat/completions", &R::post_chat_completions},
        {RouteSpec::Post, "/v1/chat/completions/control", &R::post_control},
        {RouteSpec::Post, "/v1/responses", &R::post_responses_oai},
        {RouteSpec::Post, "/responses", &R::post_responses_oai},
        {RouteSpec::Post, "/v1/audio/transcriptions", &R::post_transcriptions_oai},
        {RouteSpec::Post, "/audio/transcriptions", &R::post_transcriptions_oai},
        {RouteSpec::Post, "/v1/messages", &R::post_anthropic_messages},
        {RouteSpec::Post, "/infill", &R::post_infill},
        {RouteSpec::Post, "/embedding", &R::post_embeddings},
        {RouteSpec::Post, "/embeddings", &R::post_embeddings},
        {RouteSpec::Post, "/v1/embeddings", &R::post_embeddings_oai},
        {RouteSpec::Post, "/rerank", &R::post_rerank},
        {RouteSpec::Post, "/reranking", &R::post_rerank},
        {RouteSpec::Post, "/v1/rerank", &R::post_rerank},
        {RouteSpec::Post, "/v1/reranking", &R::post_rerank},
        {RouteSpec::Post, "/tokenize", &R::post_tokenize},
        {RouteSpec::Post, "/detokenize", &R::post_detokenize},
        {RouteSpec::Post, "/apply-template", &R::post_apply_template},
        {RouteSpec::Post, "/chat/completions/input_tokens", &R::post_chat_completions_tok},
        {RouteSpec::Post, "/v1/chat/completions/input_tokens", &R::post_chat_completions_tok},
        {RouteSpec::Post, "/responses/input_tokens", &R::post_responses_tok_oai},
        {RouteSpec::Post, "/v1/responses/input_tokens", &R::post_responses_tok_oai},
        {RouteSpec::Post, "/v1/messages/count_tokens", &R::post_anthropic_count_tokens},
        {RouteSpec::Get, "/lora-adapters", &R::get_lora_adapters},
        {RouteSpec::Post, "/lora-adapters", &R::post_lora_adapters},
        {RouteSpec::Get, "/slots", &R::get_slots},
        {RouteSpec::Post, "/slots/:id_slot", &R::post_slots},
        {RouteSpec::Get, "/v1/stream", nullptr, &server_stream_make_get_handler},
        {RouteSpec::Post, "/v1/streams/lookup", nullptr, &server_stream_make_lookup_handler},
        {RouteSpec::Delete, "/v1/stream", nullptr, &server_stream_make_delete_handler},
        {RouteSpec::Get, "/cors-proxy"},
        {RouteSpec::Post, "/cors-proxy"},
    };
    return table;
}

void addRoute(server_http_context &http, const RouteSpec &route, server_http_context::handler_t handler)
{
    switch (route.method) {
    case RouteSpec::Get: http.get(route.path, std::move(handler)); break;
    case RouteSpec::Post: http.post(route.path, std::move(handler)); break;
    case RouteSpec::Delete: http.del(route.path, std::move(handler)); break;
    }
}

server_http_res_ptr featureDisabled()
{
    auto res = std::make_unique<server_http_res>();
    res->status = 403;
    res->data = safe_json_to_str({{"error", {{"message", "this feature is disabled"}, {"type", "feature_disabled"}}}});
    return res;
}

server_http_context::handler_t routeHandler(const RouteSpec &route, server_routes &routes, int desktopSlot)
{
    if (route.make)
        return route.make();
    if (!route.member)
        return [](const server_http_req &) { return featureDisabled(); };
    // Shoehorn serves chat and completion models. llama-server's own answer says to start it with
    // --embeddings or --reranking, flags serve refuses: this one says what is and is not served.
    if (route.member == &server_routes::post_embeddings || route.member == &server_routes::post_embeddings_oai ||
        route.member == &server_routes::post_rerank)
        return [rerank = route.member == &server_routes::post_rerank](const server_http_req &) {
            return errorResponse(rerank ? "Shoehorn serves chat and completion models: reranking is not served here "
                                          "(llama-server with a reranking model does)"
                                        : "Shoehorn serves chat and completion models: embeddings are not served here "
                                          "(llama-server with an embedding model does)",
                                 ERROR_TYPE_NOT_SUPPORTED);
        };
    server_http_context::handler_t handler = routes.*route.member;
    if (desktopSlot < 0)
        return handler;
    // The desktop chat's slot is not the API's: its prompt is the user's conversation, and no
    // request may save, restore or erase it.
    if (route.member == &server_routes::get_slots)
        return [handler, desktopSlot](const server_http_req &req) {
            server_http_res_ptr res = handler(req);
            if (res && res->status == 200 && !res->is_stream()) {
                json api = json::array();
                for (auto &slot : json::parse(res->data))
                    if (slot.value("id", -1) != desktopSlot)
                        api.push_back(std::move(slot));
                res->data = safe_json_to_str(api);
            }
            return res;
        };
    if (route.member == &server_routes::post_slots)
        return [handler, desktopSlot](const server_http_req &req) {
            if (req.get_param("id_slot") == std::to_string(desktopSlot))
                return errorResponse("slot " + std::to_string(desktopSlot) + " is the desktop chat's, not the API's",
                                     ERROR_TYPE_PERMISSION);
            return handler(req);
        };
    return handler;
}

} // namespace shoehorn::internal
