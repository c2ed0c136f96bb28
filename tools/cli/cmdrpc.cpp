#include "cmdrpc.h"

#include "apiserver.h"
#include "cliargs.h"
#include "clioutput.h"
#include "modelinfo.h"
#include "remote.h"

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <pthread.h>
#include <thread>

namespace shoehorn::cli {

namespace {

const char *kWorkerHelp =
    "usage: shoehorn-cli rpc-worker [--host 127.0.0.1] [--port 50052] [--threads N] [--device NAME,...] [--cache]\n"
    "  llama.cpp's RPC server: this machine's devices (its GPUs; in a CPU build its RAM) for another\n"
    "  machine's Shoehorn or llama.cpp (--rpc HOST:PORT there). Stops on SIGTERM or SIGINT.\n"
    "  The protocol has no authentication or encryption: keep it on 127.0.0.1 and reach it through\n"
    "  an SSH tunnel (ssh -N -L 50052:127.0.0.1:50052 THIS-MACHINE on the other one), or allow one\n"
    "  client address in the firewall before --host 0.0.0.0.\n"
    "  --host H        address to listen on (default 127.0.0.1: this machine only)\n"
    "  --port P        TCP port (default 50052)\n"
    "  --threads N     CPU threads of a CPU device (default: the physical cores)\n"
    "  --device D,...  ggml devices to serve (default: every GPU, else the CPU)\n"
    "  --cache         keep received tensors in ~/.cache/Shoehorn/rpc (a reload sends hashes only)\n";

std::optional<std::string> cacheDir()
{
    const std::string folder = cacheFolder();
    const std::string dir = folder.empty() ? folder : folder + "/rpc/";
    std::error_code ec;
    if (dir.empty() || (!std::filesystem::create_directories(dir, ec) && ec))
        return std::nullopt;
    return dir;
}

// 0 and the options, or the exit code after the message.
int parseWorker(int argc, char **argv, RpcWorkerOptions &o)
{
    for (int i = 0; i < argc; ++i) {
        const std::string f = argv[i];
        const auto value = [&]() -> std::optional<std::string> {
            if (i + 1 >= argc)
                return std::nullopt;
            return std::string(argv[++i]);
        };
        if (f == "-h" || f == "--help") {
            std::printf("%s", kWorkerHelp);
            return -1;
        }
        if (f == "--cache") {
            const auto dir = cacheDir();
            if (!dir) {
                std::fprintf(stderr, "error: --cache: no cache folder can be made (HOME or XDG_CACHE_HOME)\n");
                return 2;
            }
            o.cacheDir = *dir;
            continue;
        }
        if (f != "--host" && f != "--port" && f != "--threads" && f != "-t" && f != "--device") {
            std::fprintf(stderr, "error: rpc-worker does not take %s\n%s", f.c_str(), kWorkerHelp);
            return 2;
        }
        const auto v = value();
        if (!v) {
            std::fprintf(stderr, "error: %s needs a value\n", f.c_str());
            return 2;
        }
        const auto n = parseWholeNumber(*v);
        in_addr ipv4{};
        if (f == "--host" && (*v == "localhost" || ::inet_pton(AF_INET, v->c_str(), &ipv4) == 1))
            o.host = *v == "localhost" ? "127.0.0.1" : *v;
        else if (f == "--host") {
            // ggml-rpc's server binds IPv4 addresses only (inet_addr): it said "serving", then failed.
            std::fprintf(stderr, "error: --host %s: llama.cpp's RPC server listens on an IPv4 address only "
                                 "(127.0.0.1, 0.0.0.0 or one of this machine's)\n", v->c_str());
            return 2;
        } else if (f == "--device") {
            for (size_t s = 0; s <= v->size();) {
                const size_t comma = std::min(v->find(',', s), v->size());
                if (comma > s)
                    o.devices.push_back(v->substr(s, comma - s));
                s = comma + 1;
            }
        } else if (f == "--port" && n && *n >= 1 && *n <= 65535)
            o.port = int(*n);
        else if ((f == "--threads" || f == "-t") && n && *n >= 0 && *n <= 512)
            o.threads = int(*n);
        else {
            std::fprintf(stderr, "error: %s takes %s, not '%s'\n", f.c_str(),
                         f == "--port" ? "a port from 1 to 65535" : "a whole number from 0 to 512 (0: the physical cores)",
                         v->c_str());
            return 2;
        }
    }
    return 0;
}

void sayWhatIsServed(const RpcWorkerOptions &o, const std::vector<RemoteDevice> &devices)
{
    if (!ApiServer::isLoopback(o.host)) {
        std::fprintf(stderr,
                     "\nWARNING: --host %s: every machine that reaches this port can use this machine's devices and\n"
                     "         send it any data: llama.cpp's RPC protocol has no password and no encryption.\n"
                     "         Prefer 127.0.0.1 and an SSH tunnel, or let only one client address through the firewall.\n\n",
                     o.host.c_str());
    }
    std::printf("rpc-worker: serving on %s:%d (use --rpc %s:%d on the other machine)\n", o.host.c_str(), o.port,
                o.host == "0.0.0.0" ? "THIS-MACHINE" : o.host.c_str(), o.port);
    for (const auto &d : devices)
        std::printf("  %s: %s, %s free of %s\n", d.name.c_str(), d.description.c_str(), formatBytes(d.freeBytes).c_str(),
                    formatBytes(d.totalBytes).c_str());
    std::fflush(stdout);
}

} // namespace

int cmdRpcWorker(int argc, char **argv)
{
    RpcWorkerOptions o;
    if (const int rc = parseWorker(argc, argv, o))
        return rc < 0 ? 0 : rc;
    auto devices = rpcWorkerDevices(o);
    if (!devices) {
        std::fprintf(stderr, "error: %s\n", devices.error().detail.c_str());
        return 2;
    }
    if (const Error e = ApiServer::checkHost(o.host)) { // not "port in use" for a host that is not this machine's
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        return 2;
    }
    if (!ApiServer::portFree(o.host, o.port)) {
        const int free = ApiServer::freePortAfter(o.host, o.port);
        std::fprintf(stderr, "error: port %d on %s is in use by another program%s\n", o.port, o.host.c_str(),
                     free ? (": --port " + std::to_string(free) + " is free").c_str() : "");
        return 2;
    }
    // SIGINT/SIGTERM wait for the main thread; ggml's server loop runs on its own thread and has
    // no stop, so the process ends when the signal comes (its sockets close with it).
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    sayWhatIsServed(o, *devices);
    std::thread server([o] {
        const Error e = runRpcWorker(o);
        std::fprintf(stderr, "error: %s\n", e.detail.c_str());
        std::fflush(stderr);
        std::_Exit(e.code == ErrorCode::AddressInUse || e.code == ErrorCode::InvalidArgument ? 2 : 1);
    });
    server.detach();
    int sig = 0;
    sigwait(&stop, &sig);
    std::printf("%s: stopping\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    std::fflush(stdout);
    std::_Exit(0);
}

int cmdRpcProbe(const std::string &endpoint)
{
    // ggml aborts when the worker is not there: its message is the answer (main() turned gdb's
    // backtrace off for every helper command).
    auto m = probeRemoteInProcess(endpoint);
    nlohmann::json j{{"ok", bool(m)}};
    if (!m) {
        j["detail"] = m.error().detail;
    } else {
        j["roundTripMs"] = m->roundTripMs;
        j["devices"] = nlohmann::json::array();
        for (const auto &d : m->devices)
            j["devices"].push_back({{"name", d.name}, {"description", d.description}, {"total", d.totalBytes},
                                    {"free", d.freeBytes}});
    }
    std::printf("%s\n", j.dump().c_str());
    return m ? 0 : 1;
}

int attachRpc(const std::vector<std::string> &endpoints)
{
    if (endpoints.empty())
        return 0;
    const AttachedRemotes r = attachRemotes(endpoints, selfPath());
    for (const auto &f : r.failed)
        std::fprintf(stderr, "warning: --rpc %s; planning without it\n", f.error.detail.c_str());
    for (const auto &m : r.machines) {
        std::fprintf(stderr, "remote: %s (%.1f ms there and back):", m.endpoint.c_str(), m.roundTripMs);
        for (const auto &d : m.devices)
            std::fprintf(stderr, " %s %s free of %s", d.name.c_str(), formatBytes(d.freeBytes).c_str(),
                         formatBytes(d.totalBytes).c_str());
        std::fprintf(stderr, "\n");
    }
    return int(r.machines.size());
}

} // namespace shoehorn::cli
