#pragma once

#include "error.h"
#include "settings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shoehorn {

struct GpuInfo {
    std::string name;        // ggml device name, e.g. "CUDA0"
    std::string description; // e.g. "NVIDIA GeForce RTX 3060"
    uint64_t totalBytes = 0;
    uint64_t freeBytes = 0;  // what other programs leave us
    bool remote = false;     // a device of another process or machine over llama.cpp's RPC
    // The largest weight its backend computes with (0: no limit). llama.cpp keeps a bigger one
    // in RAM and runs its layer's product on the CPU: Vulkan refuses tensors past the driver's
    // maxStorageBufferRange (128 MiB on lavapipe, 2-4 GiB on desktop cards).
    uint64_t maxTensorBytes = 0;
    std::string cardId = {}; // the card's PCI bus id as its backend reports it (ggml's device_id), or ""
    // The same card seen by other backends, not used: llama.cpp takes the first backend that lists
    // a card (CUDA before Vulkan) and skips the others' device of it ("Vulkan0").
    std::vector<std::string> sameCard = {};
};

// This process's resident memory (/proc/self/smaps_rollup): anonymous (malloc, KV cache,
// repacked or --no-mmap weights) and file-backed (mapped model files, libraries).
struct ProcessMemory {
    uint64_t anonymousBytes = 0;
    uint64_t fileBytes = 0;
    bool known = false;
};

// A GPU backend that was looked for and gave no device (the app then runs on the CPU).
struct BackendProblem {
    enum class Kind {
        NoModule,     // its module is not installed (detail: the path looked at)
        ModuleFailed, // the module did not load (detail: the loader's reason, e.g. a missing library)
        NoDevice,     // it loaded and found no device (no driver for it, or no such GPU)
        NoDriver,     // its driver is not installed (detail: the driver's library, libcuda.so.1)
        DriverTooOld, // the driver is older than the module needs (detail: what it runs, "12.2")
        CardNotCovered, // a card the module has no code for, left to Vulkan (detail: "name (7.0); the
                        // module's code: 7.5, 8.0, ...")
    };
    std::string backend; // ggml's name: "Vulkan", "CUDA" ("CPU": no CPU module at all)
    Kind kind = Kind::NoModule;
    std::string detail;
};

struct HardwareInfo {
    // In llama.cpp's order of a model's devices (llama_model_load): remote (RPC) devices first,
    // then GPUs; -ts and the per-device budgets count in this order.
    std::vector<GpuInfo> gpus;
    // The same cards through other backends (the devices GpuInfo::sameCard names), which llama.cpp
    // leaves out unless asked for (LoadSettings::backend, --device).
    std::vector<GpuInfo> otherBackends;
    uint64_t ramTotalBytes = 0;
    uint64_t ramAvailableBytes = 0;
    int physicalCores = 0;
    int logicalCores = 0;
    std::vector<std::string> backends; // ggml backends registered, e.g. {"CPU", "Vulkan", "RPC"}
    bool backendModules = false;       // backends are loadable modules (else built in)
    std::string cpuVariant;            // the CPU module ggml chose for this CPU, e.g. "haswell"
    std::string moduleDir;             // where the modules were loaded from
    std::vector<BackendProblem> backendProblems; // why each GPU backend gave no device
    // The CPU backend's extra weight buffer types on this CPU, e.g. {"AMX", "CPU_REPACK"}:
    // weights in them are repacked into anonymous memory, AMX ones in a larger layout.
    std::vector<std::string> cpuWeightBuffers;
    // The ggml types (ggml_type values) whose 2-D matrix-multiplied weights CPU_REPACK takes
    // on this CPU (x86 with AVX2: Q4_0, Q4_K, IQ4_NL, MXFP4; Q6_K only on ARM).
    std::vector<int> cpuRepackTypes;
    ProcessMemory process;             // Shoehorn's own, at the same moment
};

// The devices a llama.cpp model gets, in its order (llama_model_load's default selection):
// remote (RPC) devices, then discrete GPUs, each card once (the first backend's device of a
// cardId); integrated GPUs of one backend only when there is no discrete one. The cards' devices
// of later backends go to `skipped` when given.
std::vector<GpuInfo> llamaDeviceOrder(std::vector<GpuInfo> remote, std::vector<GpuInfo> discrete,
                                      std::vector<GpuInfo> integrated, std::vector<GpuInfo> *skipped = nullptr);

// "Vulkan0" -> "Vulkan": the backend of a ggml device name.
std::string backendOf(const std::string &deviceName);

// The GPUs a model loaded with `load` gets, in llama.cpp's order: LoadSettings::devices as named
// (none for {"none"}; a name not among them is left out: checkDevices names it), else `gpus` with
// each card's device of LoadSettings::backend in place of the default backend's.
std::vector<GpuInfo> modelDevices(const std::vector<GpuInfo> &gpus, const std::vector<GpuInfo> &otherBackends,
                                  const LoadSettings &load);

// The backends to choose between for cards several backends see, the default (llama.cpp's) first;
// empty when no card is seen twice.
std::vector<std::string> backendChoices(const std::vector<GpuInfo> &gpus);

// LoadSettings::devices names devices of this machine (a GPU, an integrated GPU or a remote
// machine's): else an InvalidArgument error naming the one that is not and the ones there are.
Error checkDevices(const LoadSettings &load);

// -mg and -ts count the GPUs the model gets: its --device list where one is given, else this
// machine's (`gpuCount`: a what-if machine's, `where` naming it). Past them llama.cpp fails the load
// (-mg) or drops the parts without a word: an InvalidArgument error that says how many there are.
// Remote (--rpc) devices join later and are not counted: callers with --rpc leave this out.
Error checkDevicePositions(const LoadSettings &load, std::optional<size_t> gpuCount = std::nullopt,
                           const std::string &where = "here");

// Asks ggml's backend registry and /proc/meminfo. Cheap enough to call every second.
HardwareInfo probeHardware();

ProcessMemory processMemory();

// What a loaded model holds, so that plans made while it is loaded count it as free (loading
// another model, or this one again, frees it first). GPU memory is taken at load; RAM pages
// only once touched (the KV cache fills as the chat grows), so RAM is measured against the
// process's anonymous memory just before the load.
struct HeldMemory {
    ProcessMemory before;           // the process just before the load (old model freed)
    std::vector<uint64_t> gpuBytes; // per GPU, the free memory the load took
    // RAM the model holds now, given the process's memory now.
    uint64_t ramBytes(const ProcessMemory &now) const;
};
// Probes just before and just after a load.
HeldMemory heldBetween(const HardwareInfo &before, const HardwareInfo &after);

// What to plan for: the real machine (optionally with a VRAM budget) or a what-if profile.
struct PlanTarget {
    std::string name;
    std::vector<GpuInfo> gpus;  // freeBytes is what the plan may use
    std::vector<GpuInfo> otherBackends; // HardwareInfo::otherBackends (a plan's LoadSettings::backend)
    uint64_t ramTotalBytes = 0;
    uint64_t ramAvailableBytes = 0;
    int physicalCores = 0;
    bool cpuAmx = false; // llama.cpp packs CPU weights for AMX (see cpuWeightBytes in planner.cpp)
    std::vector<int> cpuRepackTypes; // HardwareInfo::cpuRepackTypes; with cpuAmx false and this
                                     // empty, the CPU repacks nothing (llama.cpp's use_extra_bufts off)
    bool isProfile = false;
};

struct HardwareProfile {
    std::string id;      // "gtx1060-6g"
    std::string name;    // "GTX 1060 6 GB + 16 GB RAM"
    std::string gpuName;
    uint64_t vramBytes = 0;
    uint64_t ramBytes = 0;
    int physicalCores = 6;
    bool builtin = true;
};

constexpr uint64_t MiB = 1024ull * 1024ull;
constexpr uint64_t GiB = 1024ull * MiB;

const std::vector<HardwareProfile> &builtinProfiles();
const HardwareProfile *findProfile(const std::string &id, const std::vector<HardwareProfile> &custom = {});

// Caps a device's usable memory at `bytes` (free memory still wins when it is lower), as if it
// were smaller: --vram-budget, a remote machine's "Use at most".
void capDevice(GpuInfo &device, uint64_t bytes);

// The real machine; vramBudgetBytes > 0 caps each GPU's usable memory (free memory still wins
// when it is lower), as if the card were smaller.
PlanTarget targetFromHardware(const HardwareInfo &hw, uint64_t vramBudgetBytes = 0);
// The same with one budget per device in HardwareInfo::gpus' order (0: no cap); a single value
// caps every device, a shorter list leaves the rest as they are.
PlanTarget targetFromHardware(const HardwareInfo &hw, const std::vector<uint64_t> &deviceBudgetBytes);
// A profile: a card with that much VRAM, minus what a desktop typically holds on it.
PlanTarget targetFromProfile(const HardwareProfile &p);

// `target` for this machine with the memory `held` counted as available again (capped at the
// device's usable size); `now` is the process's memory when the target's RAM was read.
void addHeldMemory(PlanTarget &target, const HeldMemory &held, const ProcessMemory &now);

} // namespace shoehorn
