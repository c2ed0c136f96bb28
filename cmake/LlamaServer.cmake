# llama.cpp's own server (tools/server) as one static library, `shoehorn_llama_server`: slots,
# continuous batching, chat parsing, every OpenAI/Anthropic route and cpp-httplib. Shoehorn does
# not write an HTTP server or an API of its own; it hosts this one.
#
# Shoehorn's changes to upstream (33 anchored replacements, counted as calls of
# shoehorn_server_patch below: 34 before 2026-12-04, 33 after the decode hook went, 34 since the
# chat's Stop is kept out of the API's pictures (2026-12-05), 33 since the readers' polling went
# (2026-12-05); one is made for three route methods, one matches three call sites), each with its
# reason where it is applied below:
#  - the shared model: server_context::load_model_shared(params, model) creates the server's
#    context on a model the application already loaded (the desktop chat and the API share one
#    copy of the weights; turning the API on or off never reloads them), with the application's
#    projector borrowed;
#  - the desktop chat's reserved slot (API tasks never take it; `serve` reserves none), its
#    tasks marked, its Stop mid-prompt (an abortable decode, and an abortable encode of its own
#    pictures only), its own sampler, and its token ids kept in stream mode;
#  - the draft context's accessors (the memory report of what speculation allocated);
#  - stopping ends every open request; a finished stream keeps its keep-alive connection;
#  - the door: Host, Origin and API keys checked before any route, refusals counted;
#  - no stream sessions.
# Three were looked at to be replaced by upstream behaviour (2026-12-04); one went, two stay:
#  - the decode hook (a test seam) went (2026-12-04): tst_chatsession links with
#    -Wl,--wrap=llama_decode (tests/engine/decodeseam.h), so the loop's calls go through the
#    test's seam and nothing in the server or the engine carries one;
#  - set_meta went too (2026-12-04): an HTTP side opened on a running loop calls upstream's
#    update_meta; get_meta() reads only what load_model set, and Shoehorn's loop never sleeps
#    (serverargs.cpp refuses --sleep-idle-seconds), which would load again;
#  - the sampler stays: upstream's common_sampler copies and sorts every logit each token (234 us
#    for 152k logits against CandidateSampler's 36 us): measured again in the loop (2026-12-04,
#    docs/benchmarks.md), the chat path is 0.989 x llama-bench tg with it, 0.927 with upstream's
#    sampler, and no better with upstream's backend sampling;
#  - the token ids stay: upstream's streamed chunks carry one id each but skip a token that ends
#    inside a UTF-8 character, so only the final result's generated_tokens is complete.
#  Readers polling below a second went (2026-12-05): the chat's reader waits with upstream's
#  one-second interval, and engine/internal/stopwaker.h wakes it when Stop comes by sending its
#  task a result through the server's public result queue (tst_chatsession stopDuringASilentDecode).
# They are applied here, at configure time, to a copy of the sources in the build tree (the
# cached llama.cpp checkout stays pristine); every anchor must match exactly, so a new llama.cpp
# pin that moves them stops the configure with a message instead of building something else.

set(_shoehorn_srv_in "${LLAMA_CPP_DIR}/tools/server")
set(_shoehorn_srv "${CMAKE_BINARY_DIR}/llama-server-shared")
file(MAKE_DIRECTORY "${_shoehorn_srv}")

set(_shoehorn_srv_sources
    server-chat.cpp server-task.cpp server-queue.cpp server-common.cpp server-context.cpp
    server-stream.cpp server-tools.cpp server-mcp.cpp server-schema.cpp server-http.cpp)
file(GLOB _shoehorn_srv_headers RELATIVE "${_shoehorn_srv_in}" "${_shoehorn_srv_in}/*.h")
foreach(f IN LISTS _shoehorn_srv_sources _shoehorn_srv_headers)
    if(NOT f MATCHES "^(server-(context|http)\\.(cpp|h)|server-task\\.h|server-stream\\.cpp)$")
        configure_file("${_shoehorn_srv_in}/${f}" "${_shoehorn_srv}/${f}" COPYONLY)
    endif()
endforeach()

# Replace `anchor` (which must occur exactly `count` times, default once) by `replacement`.
function(shoehorn_server_patch text_var file anchor replacement)
    set(count 1)
    if(ARGC GREATER 4)
        set(count ${ARGV4})
    endif()
    set(text "${${text_var}}")
    string(REPLACE "${anchor}" "" without "${text}")
    string(LENGTH "${text}" n_text)
    string(LENGTH "${without}" n_without)
    string(LENGTH "${anchor}" n_anchor)
    math(EXPR found "(${n_text} - ${n_without}) / ${n_anchor}")
    if(NOT found EQUAL count)
        message(FATAL_ERROR "cmake/LlamaServer.cmake: an anchor of Shoehorn's change occurs ${found} times "
                            "in ${file}, not ${count} (the llama.cpp pin moved it):\n${anchor}")
    endif()
    string(REPLACE "${anchor}" "${replacement}" text "${text}")
    set(${text_var} "${text}" PARENT_SCOPE)
endfunction()

file(READ "${_shoehorn_srv_in}/server-context.h" _h)
shoehorn_server_patch(_h server-context.h
"    bool load_model(common_params & params);
"
"    bool load_model(common_params & params);

    // shoehorn: like load_model, on a model the caller loaded and keeps alive (only the
    // context and the slots belong to the server), and with the caller's projector (mtmd)
    // when it has one: it is shared, not loaded again and not freed here
    bool load_model_shared(common_params & params, llama_model * model, mtmd_context * mctx = nullptr);

    // shoehorn: slot `id` belongs to the application's own client (the desktop chat): only tasks
    // marked shoehorn_reserved take it; -1: none. Set before load_model_shared.
    void set_reserved_slot(int id);

    // shoehorn: true while llama_decode runs on a batch that holds only the reserved slot's
    // tokens: an abort callback may then stop it (the slot ends as cancelled, nothing else does)
    const std::atomic<bool> & reserved_batch_abortable() const;

    // shoehorn: speculation's second context and its own model (null: none, or MTP on the
    // target model), for the memory report of what was allocated
    llama_context * get_draft_context() const;
    llama_model * get_draft_model() const;
")
file(READ "${_shoehorn_srv_in}/server-context.cpp" _cpp)
shoehorn_server_patch(_cpp server-context.cpp
"    llama_model * model_tgt = nullptr;
"
"    llama_model * model_tgt = nullptr;
    llama_model * model_shared = nullptr;  // shoehorn: owned by the application
    llama_context_ptr ctx_shared;          // shoehorn: the server's context on model_shared
    mtmd_context * mctx_shared = nullptr;  // shoehorn: the application's projector, borrowed
    int shoehorn_reserved_slot = -1;       // shoehorn: the desktop chat's slot
    std::atomic<bool> shoehorn_abortable{false};
")
shoehorn_server_patch(_cpp server-context.cpp
"        llama_init.reset();
"
"        llama_init.reset();
        ctx_shared.reset();
")
shoehorn_server_patch(_cpp server-context.cpp
"        llama_init = common_init_from_params(params_base);

        model_tgt = llama_init->model();
        ctx_tgt   = llama_init->context();
"
"        if (model_shared != nullptr) {
            // shoehorn: what common_init_from_params does after loading, minus the model
            const llama_vocab * vocab_shared = llama_model_get_vocab(model_shared);
            params_base.sampling.logit_bias_eog.clear();
            for (llama_token i = 0; i < llama_vocab_n_tokens(vocab_shared); i++) {
                if (llama_vocab_is_eog(vocab_shared, i)) {
                    params_base.sampling.logit_bias_eog.push_back({i, -INFINITY});
                }
            }
            ctx_shared.reset(llama_init_from_model(model_shared, common_context_params_to_llama(params_base)));
            model_tgt = model_shared;
            ctx_tgt   = ctx_shared.get();
            if (ctx_tgt != nullptr && params_base.ctx_shift && !llama_memory_can_shift(llama_get_memory(ctx_tgt))) {
                params_base.ctx_shift = false;
            }
        } else {
            llama_init = common_init_from_params(params_base);

            model_tgt = llama_init->model();
            ctx_tgt   = llama_init->context();
        }
")
shoehorn_server_patch(_cpp server-context.cpp
"bool server_context::load_model(common_params & params) {
    return impl->load_model(params);
}
"
"bool server_context::load_model(common_params & params) {
    return impl->load_model(params);
}

bool server_context::load_model_shared(common_params & params, llama_model * model, mtmd_context * mctx) {
    impl->model_shared = model;
    impl->mctx_shared = mctx;
    return impl->load_model(params);
}

void server_context::set_reserved_slot(int id) {
    impl->shoehorn_reserved_slot = id;
}

const std::atomic<bool> & server_context::reserved_batch_abortable() const {
    return impl->shoehorn_abortable;
}
")
# The borrowed projector: counts as an mmproj, is not loaded from a file, and is not freed.
shoehorn_server_patch(_cpp server-context.cpp
"        const bool has_mmproj = !params.mmproj.path.empty();
"
"        const bool has_mmproj = !params.mmproj.path.empty() || mctx_shared != nullptr;
")
shoehorn_server_patch(_cpp server-context.cpp
"            mctx = mtmd_init_from_file(mmproj_path.c_str(), model_tgt, mparams);
"
"            mctx = mctx_shared != nullptr ? mctx_shared : mtmd_init_from_file(mmproj_path.c_str(), model_tgt, mparams);
")
shoehorn_server_patch(_cpp server-context.cpp
"        mtmd_free(mctx);
        mctx = nullptr;
"
"        if (mctx != mctx_shared) {
            mtmd_free(mctx);
        }
        mctx = nullptr;
")
# The reserved slot: API tasks never take it (not by similarity, not when free, not by id_slot,
# not as a child of an n > 1 request); only the application's own tasks do.
shoehorn_server_patch(_cpp server-context.cpp
"            ret = get_slot_by_id(task.id_slot);
            if (ret) {
"
"            ret = get_slot_by_id(task.id_slot);
            if (ret && ret->id == shoehorn_reserved_slot && !task.shoehorn_reserved) {
                ret = nullptr; // shoehorn: the desktop chat's slot
            }
            if (ret) {
")
shoehorn_server_patch(_cpp server-context.cpp
"                if (task.id_slot != -1 && slot.id != task.id_slot) {
                    continue;
                }
"
"                if (task.id_slot != -1 && slot.id != task.id_slot) {
                    continue;
                }
                if ((slot.id == shoehorn_reserved_slot) != task.shoehorn_reserved) {
                    continue; // shoehorn: the desktop chat's slot is its own, and it has no other
                }
")
shoehorn_server_patch(_cpp server-context.cpp
"                // skip the slot if it is not available
                if (slot.is_processing()) {
                    continue;
                }

                // select the current slot if the criteria match
                if (!ret || slot.t_last_used <= t_last) {
"
"                // skip the slot if it is not available
                if (slot.is_processing()) {
                    continue;
                }
                if ((slot.id == shoehorn_reserved_slot) != task.shoehorn_reserved) {
                    continue; // shoehorn: the desktop chat's slot is its own, and it has no other
                }

                // select the current slot if the criteria match
                if (!ret || slot.t_last_used <= t_last) {
")
shoehorn_server_patch(_cpp server-context.cpp
"            if (!slot.is_processing() && slot.id != exclude_id_slot) {
"
"            if (!slot.is_processing() && slot.id != exclude_id_slot && slot.id != shoehorn_reserved_slot) {
")
# Stop for the desktop chat mid-prompt: llama_decode may be aborted (the application's abort
# callback) while a batch holds only the reserved slot's tokens; the slot then ends as cancelled.
shoehorn_server_patch(_cpp server-context.cpp
"        int ret = 0;
        queue_tasks.yield_to_queue([&]() {
            ret = llama_decode(ctx_tgt, batch_view);
"
"        int ret = 0;
        {
            bool only_reserved = shoehorn_reserved_slot >= 0 && batch_view.n_tokens > 0;
            for (int32_t i = 0; i < batch_view.n_tokens && only_reserved; ++i) {
                only_reserved = batch_view.n_seq_id[i] == 1 && batch_view.seq_id[i][0] == shoehorn_reserved_slot;
            }
            shoehorn_abortable.store(only_reserved);
        }
        queue_tasks.yield_to_queue([&]() {
            ret = llama_decode(ctx_tgt, batch_view);
")
# The projector encodes every slot's pictures on the loop's thread; the chat's Stop may end only
# its own (an API request's picture encoded at that moment would fail with it).
shoehorn_server_patch(_cpp server-context.cpp
"                        queue_tasks.yield_to_queue([&]() {
                            res = process_mtmd_chunk(slot, slot.mbatch, cur_token_idx, n_tokens_out);
                        });
"
"                        // shoehorn: the desktop chat's Stop reaches into its own pictures only
                        shoehorn_abortable.store(slot.id == shoehorn_reserved_slot);
                        queue_tasks.yield_to_queue([&]() {
                            res = process_mtmd_chunk(slot, slot.mbatch, cur_token_idx, n_tokens_out);
                        });
                        shoehorn_abortable.store(false);
")
shoehorn_server_patch(_cpp server-context.cpp
"                // TODO: handle ret == 2 (abort) when we start aborting
"
"                if (ret == 2) {
                    // shoehorn: the desktop chat's Stop, in a batch of its slot alone. Some of the
                    // batch's micro-batches may be in the KV cache, which the slot's tokens do not
                    // say: forget its prompt, as a failed decode does, and release it. Its reader
                    // gets an error (it knows whether it asked to stop).
                    for (auto & slot : slots) {
                        if (slot.id == shoehorn_reserved_slot && slot.is_processing()) {
                            send_error(slot, \"aborted\", ERROR_TYPE_SERVER);
                            slot.release();
                            slot.prompt_clear();
                        }
                    }
                    return true;
                }
")
shoehorn_server_patch(_cpp server-context.cpp
"llama_context * server_context::get_llama_context() const {
    return impl->ctx_tgt;
}
"
"llama_context * server_context::get_llama_context() const {
    return impl->ctx_tgt;
}

llama_context * server_context::get_draft_context() const {
    return impl->ctx_dft;
}

llama_model * server_context::get_draft_model() const {
    return impl->model_dft;
}
")
# The desktop chat's own sampler, when its task brings one.
shoehorn_server_patch(_cpp server-context.cpp
"                id = common_sampler_sample(slot.smpl.get(), slot.ctx_tgt, tok_idx);
"
"                id = slot.task->shoehorn_sampler ? slot.task->shoehorn_sampler(slot.ctx_tgt, tok_idx)
                                                 : common_sampler_sample(slot.smpl.get(), slot.ctx_tgt, tok_idx);
")
# The desktop chat's final result keeps the generated token ids in stream mode too (it asks for
# them with return_tokens): its next turn continues exactly these tokens, not a re-tokenized text.
# Upstream's streamed chunks carry one token id each, but a token that ends inside a UTF-8
# character sends no chunk (process_token), so collecting the chunks' ids would lose those tokens
# (byte-fallback pieces of CJK text and emoji): the complete list is only in generated_tokens.
shoehorn_server_patch(_cpp server-context.cpp
"            res->content     = \"\";
            res->tokens      = llama_tokens{};
"
"            res->content     = \"\";
            res->tokens      = slot.task->shoehorn_reserved ? std::move(slot.generated_tokens) : llama_tokens{};
")
shoehorn_server_patch(_cpp server-context.cpp
"        if (ret != 0) {
            {
                std::string err;
"
"        shoehorn_abortable.store(false);
        if (ret != 0) {
            {
                std::string err;
")
# Second change: stopping ends every open request. llama-server's handlers wait for results
# until the client disconnects (req.should_stop), so a client that stays connected would keep
# the HTTP threads, and the process, from ever stopping. should_stop becomes a value that also
# sees shoehorn_server_stopping (set by ApiServer::stop() before it ends the task loop).
file(READ "${_shoehorn_srv_in}/server-http.h" _http_h)
shoehorn_server_patch(_http_h server-http.h
"    const std::function<bool()> & should_stop;
"
"    std::function<bool()> should_stop; // shoehorn: a value that also sees its server stopping
")
shoehorn_server_patch(_http_h server-http.h
"    std::atomic<bool> is_ready = false;
"
"    std::atomic<bool> is_ready = false;
    std::atomic<bool> shoehorn_stopping = false; // shoehorn: set while ApiServer ends the open requests
")
file(READ "${_shoehorn_srv_in}/server-http.cpp" _http_cpp)
shoehorn_server_patch(_http_cpp server-http.cpp
"            req.is_connection_closed
"
"            [this, &req] { return shoehorn_stopping.load() || req.is_connection_closed(); }
" 3)
foreach(_method Get Post Delete)
    shoehorn_server_patch(_http_cpp server-http.cpp
"    pimpl->srv->${_method}(path_prefix + path, [handler](const httplib::Request & req, httplib::Response & res) {
"
"    pimpl->srv->${_method}(path_prefix + path, [this, handler](const httplib::Request & req, httplib::Response & res) {
")
endforeach()
# Third change: a stream that ended keeps its connection. The provider returned false after
# sink.done(), which cpp-httplib takes for a cancel and closes the keep-alive connection that the
# response did not announce as closing; a client that reused it at once (the official openai
# client on a loaded machine) got "other side closed" on its next request.
shoehorn_server_patch(_http_cpp server-http.cpp
"                SRV_DBG(\"%s\", \"http: stream ended\\n\");
            }
            return has_next;
"
"                SRV_DBG(\"%s\", \"http: stream ended\\n\");
            }
            return true; // shoehorn: after done() httplib ends the response itself; false would close
")
# The door (engine/internal/httpdoor.h): before any route, the Host header against DNS
# rebinding, the Origin against a list of origins (llama-server reflects one value, or only
# loopback origins, and serves a refused origin anyway; Shoehorn refuses it with 403 and takes a
# comma-separated list), API keys compared in constant time, and every refusal reported to the
# host (shoehorn_refused) so that the status counts it.
shoehorn_server_patch(_http_h server-http.h
"    std::atomic<bool> shoehorn_stopping = false; // shoehorn: set while ApiServer ends the open requests
"
"    std::atomic<bool> shoehorn_stopping = false; // shoehorn: set while ApiServer ends the open requests
    // shoehorn: set before init(). The Host names a request may use (empty: any), and who hears
    // of a refused request (401, 403): method, path, status, message, remote address.
    std::vector<std::string> shoehorn_hosts;
    std::function<void(const std::string &, const std::string &, int, const std::string &, const std::string &)> shoehorn_refused;
")
shoehorn_server_patch(_http_cpp server-http.cpp
"// For Google Cloud Platform deployment compatibility
"
"// shoehorn: the Host and Origin checks (engine/internal/httpdoor.h). True when refused.
static bool shoehorn_door(const server_http_context & ctx, const common_params & params,
                          const httplib::Request & req, httplib::Response & res) {
    const std::string host = req.get_header_value(\"Host\");
    auto refuse = [&](const std::string & message) {
        res.status = 403;
        res.set_content(safe_json_to_str(json {{\"error\", {{\"message\", message}, {\"type\", \"permission_error\"}, {\"code\", 403}}}}),
                        \"application/json; charset=utf-8\");
        if (ctx.shoehorn_refused) {
            ctx.shoehorn_refused(req.method, req.path, 403, message, req.remote_addr);
        }
        return true;
    };
    if (!shoehorn::internal::hostAllowed(host, ctx.shoehorn_hosts)) {
        return refuse(shoehorn::internal::hostRefusal(host));
    }
    const std::string origin = req.get_header_value(\"Origin\");
    const auto cors = shoehorn::internal::corsFor(origin, host, params.cors_origins, params.cors_credentials);
    if (!cors.allowed) {
        return refuse(shoehorn::internal::originRefusal(origin, params.cors_origins));
    }
    if (!cors.allowOrigin.empty()) {
        res.set_header(\"Access-Control-Allow-Origin\", cors.allowOrigin);
        res.set_header(\"Vary\", \"Origin\");
    }
    return false;
}

// For Google Cloud Platform deployment compatibility
")
shoehorn_server_patch(_http_cpp server-http.cpp
"#include \"server-http.h\"
"
"#include \"server-http.h\"
#include \"httpdoor.h\" // shoehorn
")
shoehorn_server_patch(_http_cpp server-http.cpp
"    auto middleware_validate_api_key = [api_keys = params.api_keys](const httplib::Request & req, httplib::Response & res) {
"
"    auto middleware_validate_api_key = [this, api_keys = params.api_keys](const httplib::Request & req, httplib::Response & res) {
")
shoehorn_server_patch(_http_cpp server-http.cpp
"        if (std::find(api_keys.begin(), api_keys.end(), req_api_key) != api_keys.end()) {
"
"        if (shoehorn::internal::keyMatches(api_keys, req_api_key)) { // shoehorn: constant time
")
shoehorn_server_patch(_http_cpp server-http.cpp
"        SRV_WRN(\"%s\", \"unauthorized: Invalid API Key\\n\");
"
"        SRV_WRN(\"%s\", \"unauthorized: Invalid API Key\\n\");
        if (shoehorn_refused) {
            shoehorn_refused(req.method, req.path, 401,
                             req_api_key.empty() ? \"no API key (Authorization: Bearer KEY)\" : \"wrong API key\",
                             req.remote_addr);
        }
")
shoehorn_server_patch(_http_cpp server-http.cpp
"    srv->set_pre_routing_handler([&params, middleware_validate_api_key, middleware_server_state](const httplib::Request & req, httplib::Response & res) {
        if (params.cors_credentials && params.cors_origins == \"*\") {
            // special case: echo back the Origin header to allow any origin to access the server with credentials
            res.set_header(\"Access-Control-Allow-Origin\", req.get_header_value(\"Origin\"));
        } else if (params.cors_origins == \"localhost\") {
            // special case: only reflect the Origin header if it is a localhost origin
            std::string origin = req.get_header_value(\"Origin\");
            if (!origin.empty() && origin_is_localhost(origin)) {
                res.set_header(\"Access-Control-Allow-Origin\", origin);
            } else if (!origin.empty()) {
                SRV_WRN(\"(CORS) skip non-localhost origin: %s\\n\", origin.c_str());
            }
        } else {
            res.set_header(\"Access-Control-Allow-Origin\", params.cors_origins);
        }
"
"    srv->set_pre_routing_handler([this, &params, middleware_validate_api_key, middleware_server_state](const httplib::Request & req, httplib::Response & res) {
        if (shoehorn_door(*this, params, req, res)) { // shoehorn: Host, then Origin
            return httplib::Server::HandlerResponse::Handled;
        }
")

# Fourth change: the desktop chat's tasks are marked, and may take only the reserved slot.
file(READ "${_shoehorn_srv_in}/server-task.h" _task_h)
shoehorn_server_patch(_task_h server-task.h
"    int id_target = -1;
    int id_slot   = -1;
"
"    int id_target = -1;
    int id_slot   = -1;
    bool shoehorn_reserved = false; // shoehorn: a task of the application's own client (its slot)
    // shoehorn: the application's own sampler for this task (it keeps the top-k candidates in
    // one pass over the logits instead of copying the whole vocabulary each token); null: llama.cpp's
    std::function<llama_token(llama_context *, int32_t)> shoehorn_sampler;
")
# Fifth: no stream sessions. A request with an X-Conversation-Id header would make its generation
# ignore the client leaving and the server stopping (it drains to the end for a later resume),
# and nothing collects those sessions here: such a request is served like any other.
file(READ "${_shoehorn_srv_in}/server-stream.cpp" _stream_cpp)
shoehorn_server_patch(_stream_cpp server-stream.cpp
"    std::string conversation_id = server_stream_conv_id_from_headers(headers);
"
"    (void) headers;
    return nullptr; // shoehorn: no resumable stream sessions
    std::string conversation_id = server_stream_conv_id_from_headers(headers);
")
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-task.h" CONTENT "${_task_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-stream.cpp" CONTENT "${_stream_cpp}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-http.h" CONTENT "${_http_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-http.cpp" CONTENT "${_http_cpp}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.h" CONTENT "${_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.cpp" CONTENT "${_cpp}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_shoehorn_srv_in}/server-task.h" "${_shoehorn_srv_in}/server-stream.cpp"
             "${_shoehorn_srv_in}/server-context.h" "${_shoehorn_srv_in}/server-context.cpp"
             "${_shoehorn_srv_in}/server-http.h" "${_shoehorn_srv_in}/server-http.cpp")

# llama.cpp's web UI (tools/ui), built once per llama.cpp commit with npm into the cache and
# embedded by llama.cpp's own llama-ui-embed (cmake/WebUi.cmake). The script runs on every build
# and returns at once when the table is current; without Node/npm it says why in one line and
# the table is empty (`/` then explains: engine/internal/httpside.cpp).
option(SHOEHORN_WEB_UI "Build llama.cpp's web UI into the local API (needs Node 20.19+ and the npm registry once)" ON)
set(SHOEHORN_UI_CACHE_DIR "${SHOEHORN_CACHE_DIR}/llama-ui-${SHOEHORN_LLAMA_COMMIT}" CACHE PATH
    "Where the built web UI is kept between builds")
set(_shoehorn_ui "${CMAKE_BINARY_DIR}/llama-ui")
file(REMOVE "${_shoehorn_ui}/ui.failed") # configuring again retries a failed npm build
find_program(SHOEHORN_NODE NAMES node nodejs)
find_program(SHOEHORN_NPM npm)
add_executable(shoehorn_llama_ui_embed "${LLAMA_CPP_DIR}/tools/ui/embed.cpp")
target_compile_features(shoehorn_llama_ui_embed PRIVATE cxx_std_17)
target_compile_options(shoehorn_llama_ui_embed PRIVATE -w)
set_target_properties(shoehorn_llama_ui_embed PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_shoehorn_ui}")
set(_shoehorn_node "${SHOEHORN_NODE}")
set(_shoehorn_npm "${SHOEHORN_NPM}")
if(NOT SHOEHORN_NODE)
    set(_shoehorn_node "")
endif()
if(NOT SHOEHORN_NPM)
    set(_shoehorn_npm "")
endif()
add_custom_target(shoehorn_llama_ui_assets ALL
    BYPRODUCTS "${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h" "${_shoehorn_ui}/ui-status.h"
    COMMAND "${CMAKE_COMMAND}" "-DUI_SOURCE_DIR=${LLAMA_CPP_DIR}/tools/ui" "-DCACHE_DIR=${SHOEHORN_UI_CACHE_DIR}"
            "-DOUT_DIR=${_shoehorn_ui}" "-DEMBED=$<TARGET_FILE:shoehorn_llama_ui_embed>" "-DNODE=${_shoehorn_node}"
            "-DNPM=${_shoehorn_npm}" "-DENABLED=${SHOEHORN_WEB_UI}" -P "${PROJECT_SOURCE_DIR}/cmake/WebUi.cmake"
    VERBATIM)
add_dependencies(shoehorn_llama_ui_assets shoehorn_llama_ui_embed)
set_source_files_properties("${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h" "${_shoehorn_ui}/ui-status.h"
                            PROPERTIES GENERATED TRUE)
add_library(shoehorn_llama_ui STATIC "${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h")
add_dependencies(shoehorn_llama_ui shoehorn_llama_ui_assets)
target_include_directories(shoehorn_llama_ui SYSTEM PUBLIC "${_shoehorn_ui}")
target_compile_options(shoehorn_llama_ui PRIVATE -w)

find_package(Threads REQUIRED) # found by Qt in a GUI build, not in an engine-only one
list(TRANSFORM _shoehorn_srv_sources PREPEND "${_shoehorn_srv}/")
add_library(shoehorn_llama_server STATIC ${_shoehorn_srv_sources})
# The door's rules are Shoehorn's own code (its warnings), which server-http.cpp calls.
add_library(shoehorn_httpdoor STATIC "${PROJECT_SOURCE_DIR}/engine/internal/httpdoor.cpp")
target_include_directories(shoehorn_httpdoor PUBLIC "${PROJECT_SOURCE_DIR}/engine/internal")
target_compile_features(shoehorn_httpdoor PUBLIC cxx_std_20)
shoehorn_target_defaults(shoehorn_httpdoor)
target_link_libraries(shoehorn_llama_server PUBLIC shoehorn_httpdoor)
target_include_directories(shoehorn_llama_server SYSTEM PUBLIC "${_shoehorn_srv}")
target_include_directories(shoehorn_llama_server SYSTEM PRIVATE "${LLAMA_CPP_DIR}/tools/mtmd" "${LLAMA_CPP_DIR}")
target_link_libraries(shoehorn_llama_server PUBLIC llama-common mtmd shoehorn_llama_ui cpp-httplib Threads::Threads)
target_compile_features(shoehorn_llama_server PUBLIC cxx_std_17)
target_compile_options(shoehorn_llama_server PRIVATE -w)

# llama.cpp's own llama-server program on the same library: the reference that tools/api-bench.sh
# measures the local API against (same HTTP code, same client). Its sources are copied beside
# the patched headers so that they see the same declarations as the library. Built on demand.
foreach(f main.cpp server.cpp server-models.cpp)
    configure_file("${_shoehorn_srv_in}/${f}" "${_shoehorn_srv}/${f}" COPYONLY)
endforeach()
add_executable(llama-server EXCLUDE_FROM_ALL "${_shoehorn_srv}/main.cpp" "${_shoehorn_srv}/server.cpp"
                                             "${_shoehorn_srv}/server-models.cpp")
target_include_directories(llama-server SYSTEM PRIVATE "${LLAMA_CPP_DIR}/tools/mtmd" "${LLAMA_CPP_DIR}")
target_link_libraries(llama-server PRIVATE shoehorn_llama_server)
target_compile_options(llama-server PRIVATE -w)
set_target_properties(llama-server PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
