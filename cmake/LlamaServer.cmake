# llama.cpp's own server (tools/server) as one static library, `shoehorn_llama_server`: slots,
# continuous batching, chat parsing, every OpenAI/Anthropic route and cpp-httplib. Shoehorn does
# not write an HTTP server or an API of its own; it hosts this one.
#
# Three changes to upstream: server_context::load_model_shared(params, model) creates the server's
# context on a model the application already loaded, so the desktop chat and the API share one
# copy of the weights and turning the API on or off never reloads them; stopping the server
# ends open requests; and a finished stream keeps its keep-alive connection (see below). The
# changes are applied
# here, at configure time, to a copy of the sources in the build tree (the cached llama.cpp
# checkout stays pristine); every anchor must match exactly, so a new llama.cpp pin that moves
# them stops the configure with a message instead of building something else.

set(_shoehorn_srv_in "${LLAMA_CPP_DIR}/tools/server")
set(_shoehorn_srv "${CMAKE_BINARY_DIR}/llama-server-shared")
file(MAKE_DIRECTORY "${_shoehorn_srv}")

set(_shoehorn_srv_sources
    server-chat.cpp server-task.cpp server-queue.cpp server-common.cpp server-context.cpp
    server-stream.cpp server-tools.cpp server-mcp.cpp server-schema.cpp server-http.cpp)
file(GLOB _shoehorn_srv_headers RELATIVE "${_shoehorn_srv_in}" "${_shoehorn_srv_in}/*.h")
foreach(f IN LISTS _shoehorn_srv_sources _shoehorn_srv_headers)
    if(NOT f MATCHES "^server-(context|http)\\.(cpp|h)$")
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
    // context and the slots belong to the server)
    bool load_model_shared(common_params & params, llama_model * model);
")
file(READ "${_shoehorn_srv_in}/server-context.cpp" _cpp)
shoehorn_server_patch(_cpp server-context.cpp
"    llama_model * model_tgt = nullptr;
"
"    llama_model * model_tgt = nullptr;
    llama_model * model_shared = nullptr; // shoehorn: owned by the application
    llama_context_ptr ctx_shared;         // shoehorn: the server's context on model_shared
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

bool server_context::load_model_shared(common_params & params, llama_model * model) {
    impl->model_shared = model;
    return impl->load_model(params);
}
")
# Second change: stopping ends every open request. llama-server's handlers wait for results
# until the client disconnects (req.should_stop), so a client that stays connected would keep
# the HTTP threads, and the process, from ever stopping. should_stop becomes a value that also
# sees shoehorn_server_stopping (set by ApiServer::stop() before it ends the task loop).
file(READ "${_shoehorn_srv_in}/server-http.h" _http_h)
shoehorn_server_patch(_http_h server-http.h
"    const std::function<bool()> & should_stop;
"
"    std::function<bool()> should_stop; // shoehorn: a value that also sees shoehorn_server_stopping
")
shoehorn_server_patch(_http_h server-http.h
"struct server_http_req {
"
"// shoehorn: true while ApiServer::stop() ends the open requests (one server per process at a time)
extern std::atomic<bool> shoehorn_server_stopping;

struct server_http_req {
")
file(READ "${_shoehorn_srv_in}/server-http.cpp" _http_cpp)
shoehorn_server_patch(_http_cpp server-http.cpp
"            req.is_connection_closed
"
"            [&req] { return shoehorn_server_stopping.load() || req.is_connection_closed(); }
" 3)
shoehorn_server_patch(_http_cpp server-http.cpp
"#include <functional>
"
"#include <functional>

std::atomic<bool> shoehorn_server_stopping{false};
")
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
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-http.h" CONTENT "${_http_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-http.cpp" CONTENT "${_http_cpp}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.h" CONTENT "${_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.cpp" CONTENT "${_cpp}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_shoehorn_srv_in}/server-context.h" "${_shoehorn_srv_in}/server-context.cpp"
             "${_shoehorn_srv_in}/server-http.h" "${_shoehorn_srv_in}/server-http.cpp")

# The web UI is not embedded: building it needs its npm toolchain (Svelte, Vite and a few
# hundred packages) and the prebuilt copy comes from Hugging Face, which a build may not reach.
# `/` answers with Shoehorn's own page instead (engine/apiserver.cpp).
set(_shoehorn_ui "${CMAKE_BINARY_DIR}/llama-ui-empty")
add_executable(shoehorn_llama_ui_embed "${LLAMA_CPP_DIR}/tools/ui/embed.cpp")
target_compile_features(shoehorn_llama_ui_embed PRIVATE cxx_std_17)
target_compile_options(shoehorn_llama_ui_embed PRIVATE -w)
set_target_properties(shoehorn_llama_ui_embed PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_shoehorn_ui}")
add_custom_command(OUTPUT "${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h"
                   COMMAND shoehorn_llama_ui_embed "${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h"
                   DEPENDS shoehorn_llama_ui_embed
                   COMMENT "llama.cpp web UI table (empty: no assets)" VERBATIM)
add_library(shoehorn_llama_ui STATIC "${_shoehorn_ui}/ui.cpp" "${_shoehorn_ui}/ui.h")
target_include_directories(shoehorn_llama_ui SYSTEM PUBLIC "${_shoehorn_ui}")
target_compile_options(shoehorn_llama_ui PRIVATE -w)

find_package(Threads REQUIRED) # found by Qt in a GUI build, not in an engine-only one
list(TRANSFORM _shoehorn_srv_sources PREPEND "${_shoehorn_srv}/")
add_library(shoehorn_llama_server STATIC ${_shoehorn_srv_sources})
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
