#include "remote.h"
#include "backends.h"

#include "apiserver.h"
#include "helperprocess.h"
#include "settings.h"

#include <ggml-backend.h>
#include <ggml-rpc.h>
#include <llama.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>

namespace shoehorn {

namespace {

using Clock = std::chrono::steady_clock;

Error remoteError(const std::string &endpoint, const std::string &what)
{
    return Error{ErrorCode::RemoteFailed, endpoint + ": " + what};
}

constexpr const char *noRpcBackend = "this installation has no RPC backend (libggml-rpc.so is missing beside "
                                     "Shoehorn's other ggml modules)";

// ggml-rpc is a module like every backend: its entry points come through its registry.
decltype(&ggml_backend_rpc_add_server) rpcAddServer()
{
    return reinterpret_cast<decltype(&ggml_backend_rpc_add_server)>(
        internal::rpcProc("ggml_backend_rpc_add_server"));
}

// The helper's last words on stderr that say something (ggml's abort line, when it aborted).
std::string lastLine(const std::string &err)
{
    std::string line;
    size_t end = err.size();
    while (end > 0) {
        const size_t start = err.rfind('\n', end - 1);
        const size_t from = start == std::string::npos ? 0 : start + 1;
        line = err.substr(from, end - from);
        if (line.find_first_not_of(" \t\r") != std::string::npos && line.rfind("0x", 0) != 0 &&
            line.find("backtrace") == std::string::npos)
            break;
        line.clear();
        if (start == std::string::npos)
            break;
        end = start;
    }
    return line;
}

Result<RemoteMachine> machineFromJson(const std::string &endpoint, const std::string &out)
{
    try {
        const auto j = nlohmann::json::parse(out);
        if (!j.value("ok", false))
            return remoteError(endpoint, j.value("detail", std::string("the worker did not answer")));
        RemoteMachine m;
        m.endpoint = endpoint;
        m.roundTripMs = j.at("roundTripMs").get<double>();
        for (const auto &d : j.at("devices"))
            m.devices.push_back({d.at("name").get<std::string>(), d.at("description").get<std::string>(),
                                 d.at("total").get<uint64_t>(), d.at("free").get<uint64_t>()});
        return m;
    } catch (const std::exception &e) {
        return remoteError(endpoint, std::string("the probe's answer could not be read (") + e.what() + ")");
    }
}

} // namespace

Result<std::vector<std::string>> parseEndpoints(const std::string &list)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos)
            comma = list.size();
        const std::string e = list.substr(start, comma - start);
        const size_t colon = e.rfind(':');
        int port = 0;
        if (colon != std::string::npos && colon > 0 && colon + 1 < e.size() && colon + 6 >= e.size() &&
            e.find_first_not_of("0123456789", colon + 1) == std::string::npos)
            port = std::stoi(e.substr(colon + 1));
        if (port < 1 || port > 65535)
            return Error{ErrorCode::InvalidArgument,
                         "--rpc takes host:port[,host:port...] with ports from 1 to 65535, not '" + e + "'"};
        out.push_back(e);
        start = comma + 1;
    }
    return out;
}

Result<RemoteMachine> probeRemoteInProcess(const std::string &endpoint)
{
    const auto addServer = rpcAddServer();
    if (!addServer)
        return remoteError(endpoint, noRpcBackend);
    const auto start = Clock::now();
    ggml_backend_reg_t reg = addServer(endpoint.c_str());
    if (!reg)
        return remoteError(endpoint, "the worker serves no devices");
    RemoteMachine m;
    m.endpoint = endpoint;
    m.roundTripMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); ++i) {
        ggml_backend_dev_t dev = ggml_backend_reg_dev_get(reg, i);
        size_t freeB = 0, totalB = 0;
        const auto t0 = Clock::now();
        ggml_backend_dev_memory(dev, &freeB, &totalB);
        if (i == 0) // one query there and back (the first figure includes the connection)
            m.roundTripMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        m.devices.push_back({ggml_backend_dev_name(dev), ggml_backend_dev_description(dev), totalB, freeB});
    }
    return m;
}

Result<RemoteMachine> probeRemote(const std::string &endpoint, const std::string &helper, int timeoutMs,
                                  const std::atomic<bool> *stop)
{
    if (stop && stop->load())
        return Error{ErrorCode::Cancelled, "the probe of " + endpoint + " was stopped"};
    internal::HelperProcess child;
    if (!child.start({helper, "rpc-probe", endpoint}, {256ull << 20, timeoutMs / 1000 + 2}, false))
        return remoteError(endpoint, "the probe could not start (" + std::string(std::strerror(errno)) + ")");
    std::string out, err;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    bool finished = false;
    while (Clock::now() < deadline && !(stop && stop->load()))
        if (!child.pump(out, err, std::chrono::milliseconds(50))) {
            finished = true;
            break;
        }
    const int status = finished ? child.wait() : child.kill();
    if (!finished && stop && stop->load())
        return Error{ErrorCode::Cancelled, "the probe of " + endpoint + " was stopped"};
    if (!finished)
        return remoteError(endpoint, "no answer within " + std::to_string(timeoutMs / 1000) +
                                         " s (is it a Shoehorn or llama.cpp RPC worker, and does a firewall drop the connection?)");
    if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && out.empty())) {
        const std::string line = lastLine(err);
        if (line.find("Failed to connect") != std::string::npos)
            return remoteError(endpoint, "cannot connect (is shoehorn-cli rpc-worker running there, on that port?)");
        if (line.find("version mismatch") != std::string::npos || line.find("handshake") != std::string::npos)
            return remoteError(endpoint, "the worker speaks another RPC protocol version (" + line + ")");
        return remoteError(endpoint, line.empty() ? std::string("the probe ended without an answer") : line);
    }
    return machineFromJson(endpoint, out);
}

AttachedRemotes attachRemotes(const std::vector<std::string> &endpoints, const std::string &helper,
                              const std::atomic<bool> *stop)
{
    AttachedRemotes out;
    const auto addServer = rpcAddServer();
    for (const auto &e : endpoints) {
        if (!addServer) {
            out.failed.push_back({e, remoteError(e, noRpcBackend)});
            continue;
        }
        auto probed = probeRemote(e, helper, 5000, stop);
        if (!probed) {
            out.failed.push_back({e, probed.error()});
            continue;
        }
        // The worker answered its probe: connecting here now meets a worker that is there.
        ggml_backend_reg_t reg = addServer(e.c_str());
        if (!reg) {
            out.failed.push_back({e, remoteError(e, "the worker serves no devices")});
            continue;
        }
        // As llama.cpp's --rpc does: the worker's registry joins ggml's, once per worker.
        static std::vector<ggml_backend_reg_t> registered;
        {
            std::unique_lock lock(internal::deviceRegistry()); // no one lists the devices meanwhile
            if (std::find(registered.begin(), registered.end(), reg) == registered.end()) {
                ggml_backend_register(reg);
                registered.push_back(reg);
            }
        }
        RemoteMachine m = std::move(*probed);
        for (size_t i = 0; i < m.devices.size() && i < ggml_backend_reg_dev_count(reg); ++i)
            m.devices[i].name = ggml_backend_dev_name(ggml_backend_reg_dev_get(reg, i)); // this process's name
        out.machines.push_back(std::move(m));
    }
    return out;
}

Result<std::vector<RemoteDevice>> rpcWorkerDevices(const RpcWorkerOptions &options)
{
    internal::initBackends();
    std::vector<RemoteDevice> out;
    const uint64_t available = probeHardware().ramAvailableBytes;
    const auto add = [&out, available](ggml_backend_dev_t dev) {
        size_t freeB = 0, totalB = 0;
        ggml_backend_dev_memory(dev, &freeB, &totalB);
        // ggml's CPU device calls all of RAM free; the worker reports what is available (LlamaRpc.cmake).
        if (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU && available > 0)
            freeB = std::min<size_t>(freeB, available);
        out.push_back({ggml_backend_dev_name(dev), ggml_backend_dev_description(dev), totalB, freeB});
    };
    for (const auto &name : options.devices) {
        ggml_backend_dev_t dev = ggml_backend_dev_by_name(name.c_str());
        if (!dev) {
            std::string known;
            for (size_t i = 0; i < ggml_backend_dev_count(); ++i)
                known += std::string(known.empty() ? "" : ", ") + ggml_backend_dev_name(ggml_backend_dev_get(i));
            return Error{ErrorCode::InvalidArgument, "--device " + name + ": no such device here (devices: " + known + ")"};
        }
        add(dev);
    }
    if (!options.devices.empty())
        return out;
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i)
        if (ggml_backend_dev_type(ggml_backend_dev_get(i)) != GGML_BACKEND_DEVICE_TYPE_CPU)
            add(ggml_backend_dev_get(i));
    if (out.empty())
        add(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
    return out;
}

Error runRpcWorker(const RpcWorkerOptions &options)
{
    auto devices = rpcWorkerDevices(options);
    if (!devices)
        return devices.error();
    if (!ApiServer::portFree(options.host, options.port))
        return Error{ErrorCode::AddressInUse, options.host + ":" + std::to_string(options.port) +
                                                  " cannot be bound (in use by another program?)"};
    std::vector<ggml_backend_dev_t> devs;
    for (const auto &d : *devices)
        devs.push_back(ggml_backend_dev_by_name(d.name.c_str()));
    const std::string endpoint = options.host + ":" + std::to_string(options.port);
    const int threads = options.threads > 0 ? options.threads : physicalCoreCount();
    const auto startServer = reinterpret_cast<decltype(&ggml_backend_rpc_start_server)>(
        internal::rpcProc("ggml_backend_rpc_start_server"));
    if (!startServer)
        return Error{ErrorCode::RemoteFailed, noRpcBackend};
    startServer(endpoint.c_str(), options.cacheDir.empty() ? nullptr : options.cacheDir.c_str(),
                                  size_t(threads), devs.size(), devs.data());
    return Error{ErrorCode::RemoteFailed, endpoint + ": the RPC server stopped (see the lines above)"};
}

} // namespace shoehorn
