#include "apiroutes.h"

#include <server-common.h>
#include <server-context.h>

namespace shoehorn::internal {

std::vector<Route> apiRoutes(server_routes *r, int desktopSlot)
{
    using H = server_http_context::handler_t server_routes::*;
    const auto h = [r](H m) { return r ? r->*m : server_http_context::handler_t(); };
    std::vector<Route> out = {
        {false, "/metrics", h(&server_routes::get_metrics)},
        {false, "/props", h(&server_routes::get_props)},
        {false, "/models", h(&server_routes::get_models)},
        {false, "/v1/models", h(&server_routes::get_models)},
        {true, "/completion", h(&server_routes::post_completions)},
        {true, "/completions", h(&server_routes::post_completions)},
        {true, "/v1/completions", h(&server_routes::post_completions_oai)},
        {true, "/chat/completions", h(&server_routes::post_chat_completions)},
        {true, "/v1/chat/completions", h(&server_routes::post_chat_completions)},
        {true, "/v1/responses", h(&server_routes::post_responses_oai)},
        {true, "/v1/messages", h(&server_routes::post_anthropic_messages)},
        {true, "/v1/messages/count_tokens", h(&server_routes::post_anthropic_count_tokens)},
        {true, "/v1/chat/completions/input_tokens", h(&server_routes::post_chat_completions_tok)},
        {true, "/infill", h(&server_routes::post_infill)},
        {true, "/tokenize", h(&server_routes::post_tokenize)},
        {true, "/detokenize", h(&server_routes::post_detokenize)},
        {true, "/apply-template", h(&server_routes::post_apply_template)},
        {true, "/embedding", h(&server_routes::post_embeddings)},
        {true, "/embeddings", h(&server_routes::post_embeddings)},
        {true, "/v1/embeddings", h(&server_routes::post_embeddings_oai)},
    };
    // The desktop chat's slot is not the API's: its prompt is the user's conversation.
    server_http_context::handler_t slots;
    if (r)
        slots = [r, desktopSlot](const server_http_req &req) {
            server_http_res_ptr res = r->get_slots(req);
            if (res && res->status == 200 && !res->is_stream() && desktopSlot >= 0) {
                json api = json::array();
                for (auto &slot : json::parse(res->data))
                    if (slot.value("id", -1) != desktopSlot)
                        api.push_back(std::move(slot));
                res->data = safe_json_to_str(api);
            }
            return res;
        };
    out.push_back({false, "/slots", slots});
    return out;
}

} // namespace shoehorn::internal
