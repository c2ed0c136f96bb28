#pragma once

// Engine-internal: ggml's backends, loaded once per process. In a build with loadable modules
// (SHOEHORN_BACKEND_MODULES, the default) the CPU backend comes in every x86-64 variant and ggml
// picks the best one this CPU runs; GPU backends (Vulkan, CUDA) are modules of their own,
// shipped in packages of their own. Everything that would call into the CPU backend directly
// (its buffer type, thread pools, type traits) asks here, so the same code runs in a static build.

#include "hardware.h"

#include <ggml-backend.h>

#include <shared_mutex>
#include <string>
#include <vector>

namespace shoehorn::internal {

// llama_backend_init() and, with modules, the CPU module ggml would choose and RPC; with gpus,
// also every other module (ggml_backend_load_all_from_path) and the record of what was looked for
// and not found. The helpers that only read a file (its vocabulary, a dry run on the CPU) ask for
// no GPU: initialising a GPU driver costs them time for nothing. Thread-safe; done once each.
void initBackends(bool gpus = true);

// Where the modules were loaded from: $SHOEHORN_BACKEND_DIR, else the program's directory when it
// holds them (the build tree), else ../lib/shoehorn beside it (the installed package). Empty in a
// static build.
std::string moduleDir();

// "haswell", "zen4", ... the CPU module ggml chose; "built in" in a static build.
std::string cpuVariant();

// The GPU backends looked for and why each gave no device.
std::vector<BackendProblem> backendProblems();

ggml_backend_dev_t cpuDevice();
ggml_backend_buffer_type_t cpuBufferType();
// A function the CPU backend exports through its registry (ggml_threadpool_new, ...).
void *cpuProc(const char *name);
// A function ggml-rpc exports through its registry (ggml_backend_rpc_add_server, ...); null when
// this build or installation has no RPC backend.
void *rpcProc(const char *name);
// ggml's list of backends and devices is a plain vector: a remote machine's registry joining it
// (attachRemotes, on the worker) takes this exclusively; work that lists the devices on another
// thread (the hardware probe, a projector's dry run, from pool threads) takes it shared.
std::shared_mutex &deviceRegistry();

// Whether the CPU backend has a dot-product kernel for weights of this type (a type it can
// multiply with).
bool cpuMultiplies(ggml_type type);

} // namespace shoehorn::internal
