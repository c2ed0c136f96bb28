#pragma once

#include "error.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn {

// llama.cpp's RPC devices: another machine's GPUs, or its RAM, served over TCP by ggml's own RPC
// server (`shoehorn-cli rpc-worker`). Attached, they are ggml devices of this process like a
// local GPU: the hardware probe lists them, the planner plans for them, and llama.cpp's -ngl
// places layers on them. The protocol has no authentication: a worker listens on loopback unless
// told otherwise (README: SSH tunnel, firewall rule).

struct RemoteDevice {
    std::string name;        // ggml's name of it here ("RPC0"); on the worker side its own ("CPU", "CUDA0")
    std::string description; // the endpoint it is reached at; on the worker side the device's description
    uint64_t totalBytes = 0;
    uint64_t freeBytes = 0;
};

struct RemoteMachine {
    std::string endpoint; // host:port
    std::vector<RemoteDevice> devices;
    double roundTripMs = 0; // one memory query, there and back
};

// "host:port[,host:port...]", llama-server's --rpc. InvalidArgument names the entry that is not
// host:port with a port from 1 to 65535.
Result<std::vector<std::string>> parseEndpoints(const std::string &list);

// What the helper process runs (`shoehorn-cli rpc-probe ENDPOINT`): connects to the worker,
// counts its devices and reads their memory. ggml aborts the process when a worker is not there
// or speaks another protocol version, so nothing else calls it.
Result<RemoteMachine> probeRemoteInProcess(const std::string &endpoint);
// The same in a helper process (shoehorn-cli at `helper`) within `timeoutMs`: a worker that is
// not there, never answers or is not a worker ends only the helper. RemoteFailed names the
// endpoint and what happened. `stop` set (the app quitting) ends the helper within 50 ms:
// Cancelled.
Result<RemoteMachine> probeRemote(const std::string &endpoint, const std::string &helper, int timeoutMs = 5000,
                                  const std::atomic<bool> *stop = nullptr);

// Probes each worker (in the helper) and adds the devices of those that answered to this
// process's ggml devices, where plans and loads find them. A worker that failed is listed with
// its error; the others are attached all the same.
struct RemoteFailure {
    std::string endpoint;
    Error error; // RemoteFailed, its detail "endpoint: why"
};
struct AttachedRemotes {
    std::vector<RemoteMachine> machines;
    std::vector<RemoteFailure> failed;
};
// `stop` set (the app quitting) ends the probe under way and skips the rest: Cancelled.
AttachedRemotes attachRemotes(const std::vector<std::string> &endpoints, const std::string &helper,
                              const std::atomic<bool> *stop = nullptr);

// The worker side: ggml's RPC server (ggml_backend_rpc_start_server) on this machine's devices.
struct RpcWorkerOptions {
    std::string host = "127.0.0.1";
    int port = 50052;
    int threads = 0;                  // CPU threads of a CPU device; 0: the physical cores
    std::vector<std::string> devices; // ggml device names; empty: every GPU, else the CPU (llama.cpp's rule)
    std::string cacheDir;             // --cache: tensors kept here by hash; empty: none
};
// The devices a worker with these options serves, or InvalidArgument naming an unknown device and
// the known ones.
Result<std::vector<RemoteDevice>> rpcWorkerDevices(const RpcWorkerOptions &options);
// Serves until the process ends (ggml's server loop has no stop: call it on a thread of its own
// and end the process to stop). Returns AddressInUse when host:port cannot be bound, and
// InvalidArgument for an unknown device; otherwise it does not return.
Error runRpcWorker(const RpcWorkerOptions &options);

} // namespace shoehorn
