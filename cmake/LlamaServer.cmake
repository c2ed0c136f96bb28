# llama.cpp's own server (tools/server) as one static library, `shoehorn_llama_server`: slots,
# continuous batching, chat parsing, every OpenAI/Anthropic route and cpp-httplib. Shoehorn does
# not write an HTTP server or an API of its own; it hosts this one.
#
# One change to upstream: server_context::load_model_shared(params, model) creates the server's
# context on a model the application already loaded, so the desktop chat and the API share one
# copy of the weights and turning the API on or off never reloads them. The change is applied
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
    if(NOT f STREQUAL "server-context.cpp" AND NOT f STREQUAL "server-context.h")
        configure_file("${_shoehorn_srv_in}/${f}" "${_shoehorn_srv}/${f}" COPYONLY)
    endif()
endforeach()

# Replace `anchor` (which must occur exactly once) by `replacement` in `text_var`.
function(shoehorn_server_patch text_var file anchor replacement)
    set(text "${${text_var}}")
    string(FIND "${text}" "${anchor}" first)
    string(FIND "${text}" "${anchor}" last REVERSE)
    if(first EQUAL -1 OR NOT first EQUAL last)
        message(FATAL_ERROR "cmake/LlamaServer.cmake: the anchor for the shared-model change is not "
                            "found exactly once in ${file} (the llama.cpp pin moved it):\n${anchor}")
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
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.h" CONTENT "${_h}" @ONLY)
file(CONFIGURE OUTPUT "${_shoehorn_srv}/server-context.cpp" CONTENT "${_cpp}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${_shoehorn_srv_in}/server-context.h" "${_shoehorn_srv_in}/server-context.cpp")

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

list(TRANSFORM _shoehorn_srv_sources PREPEND "${_shoehorn_srv}/")
add_library(shoehorn_llama_server STATIC ${_shoehorn_srv_sources})
target_include_directories(shoehorn_llama_server SYSTEM PUBLIC "${_shoehorn_srv}")
target_include_directories(shoehorn_llama_server SYSTEM PRIVATE "${LLAMA_CPP_DIR}/tools/mtmd" "${LLAMA_CPP_DIR}")
target_link_libraries(shoehorn_llama_server PUBLIC llama-common mtmd shoehorn_llama_ui cpp-httplib Threads::Threads)
target_compile_features(shoehorn_llama_server PUBLIC cxx_std_17)
target_compile_options(shoehorn_llama_server PRIVATE -w)
