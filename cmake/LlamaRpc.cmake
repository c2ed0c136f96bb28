# ggml-rpc's client aborts the whole process when a worker stops answering (RPC_STATUS_ASSERT in
# its dispatcher thread): a worker killed mid-answer would take the window down with it. Shoehorn
# compiles a copy of ggml-rpc.cpp with one change (and a leak mended and a worker's free RAM, below): a failed send or
# receive marks the connection failed (no abort), later commands on it are skipped, reads get
# zeros, and graph_compute returns GGML_STATUS_FAILED, so llama_decode fails and the answer ends
# with an error. shoehorn_rpc_failed_endpoint() names the worker for the message
# (engine/internal/rpcstate.h). Two changes to transport.cpp go with it: no SIGPIPE, and a time
# limit on a silent worker.
# Included after llama.cpp's add_subdirectory (LlamaCpp.cmake); uses shoehorn_server_patch.

set(_rpc_in "${LLAMA_CPP_DIR}/ggml/src/ggml-rpc")
set(_rpc_out "${CMAKE_BINARY_DIR}/ggml-rpc-shoehorn")
file(READ "${_rpc_in}/ggml-rpc.cpp" _rpc_cpp)

# The dispatcher remembers that its worker is gone, and for which endpoint.
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"    rpc_msg_queue    queue;
    socket_ptr       sock;
    std::atomic_bool running;
"
"    rpc_msg_queue    queue;
    socket_ptr       sock;
    std::atomic_bool running;
public:
    std::atomic_bool failed{false}; // shoehorn: the worker stopped answering
    std::string      endpoint;
private:
")
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"    LOG_DBG(\"[%s] connected to %s\\n\", __func__, endpoint.c_str());
    running = true;
"
"    LOG_DBG(\"[%s] connected to %s\\n\", __func__, endpoint.c_str());
    this->endpoint = endpoint;
    shoehorn_rpc_note_connected(endpoint);
    running = true;
")
# No abort in the dispatcher: the first failure is logged and remembered, the rest skipped.
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"            if (msg_ptr->output) {
                bool status = send_rpc_cmd(sock, msg_ptr->cmd, msg_ptr->input.get(), msg_ptr->input_size, msg_ptr->output, msg_ptr->output_size);
                RPC_STATUS_ASSERT(status);
            } else {
                bool status = send_rpc_cmd(sock, msg_ptr->cmd, msg_ptr->input.get(), msg_ptr->input_size);
                RPC_STATUS_ASSERT(status);
            }
"
"            bool status = !failed && (msg_ptr->output
                ? send_rpc_cmd(sock, msg_ptr->cmd, msg_ptr->input.get(), msg_ptr->input_size, msg_ptr->output, msg_ptr->output_size)
                : send_rpc_cmd(sock, msg_ptr->cmd, msg_ptr->input.get(), msg_ptr->input_size));
            if (!status) {
                if (!failed.exchange(true)) {
                    GGML_LOG_ERROR(\"RPC worker %s stopped answering\\n\", endpoint.c_str());
                    shoehorn_rpc_note_failure(endpoint);
                }
                if (msg_ptr->output) {
                    memset(msg_ptr->output, 0, msg_ptr->output_size);
                }
            }
")
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"class rpc_dispatcher {
public:"
"static std::mutex shoehorn_rpc_mutex;
static std::string shoehorn_rpc_failed; // the first worker that stopped answering
static void shoehorn_rpc_note_failure(const std::string & endpoint) {
    std::lock_guard<std::mutex> lock(shoehorn_rpc_mutex);
    if (shoehorn_rpc_failed.empty()) {
        shoehorn_rpc_failed = endpoint;
    }
}
// A new connection to that worker (after the model was unloaded and loaded again) answers again.
static void shoehorn_rpc_note_connected(const std::string & endpoint) {
    std::lock_guard<std::mutex> lock(shoehorn_rpc_mutex);
    if (shoehorn_rpc_failed == endpoint) {
        shoehorn_rpc_failed.clear();
    }
}
static size_t shoehorn_rpc_failed_endpoint(char * out, size_t size) {
    std::lock_guard<std::mutex> lock(shoehorn_rpc_mutex);
    if (out && size) {
        snprintf(out, size, \"%s\", shoehorn_rpc_failed.c_str());
    }
    return shoehorn_rpc_failed.size();
}

class rpc_dispatcher {
public:")
# A graph on a worker that is gone fails instead of computing nothing.
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"    ggml_backend_rpc_device_context * rpc_dev_ctx = (ggml_backend_rpc_device_context *)rpc_dev->context;

    GGML_ASSERT(cgraph->n_nodes > 0);"
"    ggml_backend_rpc_device_context * rpc_dev_ctx = (ggml_backend_rpc_device_context *)rpc_dev->context;

    if (rpc_ctx->dispatcher->failed) {
        return GGML_STATUS_FAILED;
    }
    GGML_ASSERT(cgraph->n_nodes > 0);")

# The failed endpoint is asked for through the registry (ggml-rpc is a loadable module).
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"static void * ggml_backend_rpc_get_proc_address(ggml_backend_reg_t reg, const char * name) {"
"static void * ggml_backend_rpc_get_proc_address(ggml_backend_reg_t reg, const char * name) {
    if (std::strcmp(name, \"shoehorn_rpc_failed_endpoint\") == 0) {
        return (void *)shoehorn_rpc_failed_endpoint;
    }")

# ggml's event_free leaves freeing the event to the backend (CUDA's deletes it); ggml-rpc's deleted
# only its context: 16 bytes lost per event, every context on RPC devices (LeakSanitizer, 2026-12-05).
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"void rpc_dispatcher::event_free(ggml_backend_event_t event) {
    rpc_event * ev = (rpc_event *)event->context;
    delete ev;
}"
"void rpc_dispatcher::event_free(ggml_backend_event_t event) {
    rpc_event * ev = (rpc_event *)event->context;
    delete ev;
    delete event;
}")

# A worker lending its RAM (no GPU, or --device CPU) reports what the kernel says is available:
# ggml's CPU device says all of RAM is free ("ill-defined"), and the client plans with it (a
# machine with 8 of 23.5 GiB available offered 23.5).
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"bool rpc_server::get_device_memory(const rpc_msg_get_device_memory_req & request, rpc_msg_get_device_memory_rsp & response) {
"
"static size_t shoehorn_available_ram(size_t fallback) {
    FILE * f = fopen(\"/proc/meminfo\", \"r\");
    if (!f) {
        return fallback;
    }
    char line[256];
    size_t kb = 0;
    while (fgets(line, sizeof line, f) && sscanf(line, \"MemAvailable: %zu kB\", &kb) != 1) {
    }
    fclose(f);
    return kb > 0 ? kb * 1024 : fallback;
}

bool rpc_server::get_device_memory(const rpc_msg_get_device_memory_req & request, rpc_msg_get_device_memory_rsp & response) {
")
shoehorn_server_patch(_rpc_cpp ggml-rpc.cpp
"    ggml_backend_dev_memory(dev, &free, &total);
    response.free_mem = free;
"
"    ggml_backend_dev_memory(dev, &free, &total);
    if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU) {
        free = std::min(free, shoehorn_available_ram(free));
    }
    response.free_mem = free;
")

# Writing to a worker that closed its socket raises SIGPIPE, whose default ends the process: the
# send says so with an error instead (MSG_NOSIGNAL), and the dispatcher above takes it from there.
file(READ "${_rpc_in}/transport.cpp" _rpc_transport)
shoehorn_server_patch(_rpc_transport transport.cpp
"        ssize_t n = send(fd, (const char *)data + bytes_sent, size_to_send, 0);"
"        ssize_t n = send(fd, (const char *)data + bytes_sent, size_to_send, MSG_NOSIGNAL);")

# A worker that stops answering without closing (a frozen machine, a dropped network) would keep
# a read waiting forever: reads and writes give up after SHOEHORN_RPC_TIMEOUT_S seconds (120 by
# default: a slow worker's prompt batch can take tens of seconds), and the answer ends as above.
shoehorn_server_patch(_rpc_transport transport.cpp
"    if (::connect(sockfd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        return nullptr;
    }
    return socket_ptr(new socket_t(std::make_unique<impl>(sockfd)));"
"    if (::connect(sockfd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        return nullptr;
    }
    {
        const char * env = getenv(\"SHOEHORN_RPC_TIMEOUT_S\");
        struct timeval tv = {env && atoi(env) > 0 ? atoi(env) : 120, 0};
        setsockopt(sockfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        setsockopt(sockfd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    }
    return socket_ptr(new socket_t(std::make_unique<impl>(sockfd)));")

file(CONFIGURE OUTPUT "${_rpc_out}/ggml-rpc.cpp" CONTENT "${_rpc_cpp}" @ONLY)
file(CONFIGURE OUTPUT "${_rpc_out}/transport.cpp" CONTENT "${_rpc_transport}" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_rpc_in}/ggml-rpc.cpp" "${_rpc_in}/transport.cpp")
get_target_property(_rpc_sources ggml-rpc SOURCES)
foreach(f ggml-rpc transport)
    list(TRANSFORM _rpc_sources REPLACE "^(.*/ggml-rpc/)?${f}\\.cpp$" "${_rpc_out}/${f}.cpp")
endforeach()
set_property(TARGET ggml-rpc PROPERTY SOURCES ${_rpc_sources})
target_include_directories(ggml-rpc PRIVATE "${_rpc_in}")
