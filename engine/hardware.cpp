#include "hardware.h"

#include "backends.h"
#include "devices.h"
#include "settings.h"

#include <ggml-backend.h>
#include <ggml-cpp.h>
#include <ggml.h>
#include <llama.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace shoehorn {

namespace {

void readMeminfo(uint64_t &total, uint64_t &available)
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t value = 0;
    std::string unit;
    while (in >> key >> value) {
        std::getline(in, unit);
        if (key == "MemTotal:")
            total = value * 1024;
        else if (key == "MemAvailable:")
            available = value * 1024;
    }
}

// Asks CPU_REPACK what llama.cpp's weight_buft_supported() (llama-model-loader.cpp) asks for each
// weight: would it run a MUL_MAT of a 2-D weight of this type held in its buffer? The answer
// depends only on the CPU, so it is asked once.
std::vector<int> probeRepackTypes(ggml_backend_dev_t cpu, ggml_backend_buffer_type_t repack)
{
    static const ggml_type candidates[] = {GGML_TYPE_F16,  GGML_TYPE_BF16, GGML_TYPE_Q4_0,   GGML_TYPE_Q4_1,
                                           GGML_TYPE_Q5_0, GGML_TYPE_Q5_1, GGML_TYPE_Q8_0,   GGML_TYPE_Q2_K,
                                           GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K,   GGML_TYPE_Q6_K,
                                           GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS, GGML_TYPE_MXFP4};
    std::vector<int> types;
    for (const ggml_type type : candidates) {
        ggml_init_params params{ggml_tensor_overhead() * 4, nullptr, true};
        ggml_context *ctx = ggml_init(params);
        ggml_tensor *w = ggml_new_tensor_2d(ctx, type, 4096, 4096);
        ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 4096, 512);
        ggml_tensor *op = ggml_mul_mat(ctx, w, b);
        w->buffer = ggml_backend_buft_alloc_buffer(repack, 0);
        if (ggml_backend_dev_supports_op(cpu, op))
            types.push_back(type);
        ggml_backend_buffer_free(w->buffer);
        ggml_free(ctx);
    }
    return types;
}

void probeCpuWeightBuffers(HardwareInfo &hw)
{
    ggml_backend_dev_t cpu = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
    if (!cpu)
        return;
    auto extra = reinterpret_cast<ggml_backend_dev_get_extra_bufts_t>(
        ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(cpu), "ggml_backend_dev_get_extra_bufts"));
    for (ggml_backend_buffer_type_t *b = extra ? extra(cpu) : nullptr; b && *b; ++b) {
        hw.cpuWeightBuffers.emplace_back(ggml_backend_buft_name(*b));
        if (hw.cpuWeightBuffers.back() == "CPU_REPACK") {
            static const std::vector<int> repackTypes = probeRepackTypes(cpu, *b);
            hw.cpuRepackTypes = repackTypes;
        }
    }
}

// What llama.cpp's weight_buft_supported() asks a GPU for each weight (a MUL_MAT of it held in
// the device's buffer), for ever larger weights: the largest it takes (0: any size up to 1 TiB).
// Only sizes matter to the backends that refuse some (Vulkan); the rows are long so that the
// product stays far smaller than the weight.
uint64_t probeMaxTensorBytes(ggml_backend_dev_t dev)
{
    constexpr int64_t kRow = 8192; // f16 values: 16 KiB per row
    constexpr uint64_t kRowBytes = kRow * 2;
    const ggml_backend_buffer_ptr empty(ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(dev), 0));
    if (!empty)
        return 0;
    const auto takes = [&](int64_t rows) {
        ggml_init_params params{ggml_tensor_overhead() * 4, nullptr, true};
        ggml_context *ctx = ggml_init(params);
        ggml_tensor *w = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, kRow, rows);
        ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, kRow, 512);
        ggml_tensor *op = ggml_mul_mat(ctx, w, b);
        w->buffer = empty.get();
        const bool ok = ggml_backend_dev_supports_op(dev, op);
        ggml_free(ctx);
        return ok;
    };
    int64_t lo = 0, hi = int64_t((1ull << 40) / kRowBytes); // lo is taken (or nothing), hi is not
    if (takes(hi))
        return 0;
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        (takes(mid) ? lo : hi) = mid;
    }
    return std::max<uint64_t>(1, uint64_t(lo) * kRowBytes);
}

// Free and total memory, and for a local device the largest weight its backend takes.
void measureDevice(GpuInfo &g)
{
    ggml_backend_dev_t dev = ggml_backend_dev_by_name(g.name.c_str());
    if (!dev)
        return;
    size_t freeB = 0, totalB = 0;
    ggml_backend_dev_memory(dev, &freeB, &totalB);
    g.freeBytes = freeB;
    g.totalBytes = totalB;
    if (g.remote) // a remote device would answer over the network, once per question
        return;
    static std::map<std::string, uint64_t> limits; // asked once per device and process
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    const auto [it, added] = limits.try_emplace(g.name, 0);
    if (added)
        it->second = probeMaxTensorBytes(dev);
    g.maxTensorBytes = it->second;
}

// A desktop session keeps a few hundred MiB of a card's memory busy (compositor, browser).
constexpr uint64_t kProfileDesktopReserve = 300 * MiB;

} // namespace

HardwareInfo probeHardware()
{
    internal::initBackends();
    std::shared_lock registry(internal::deviceRegistry()); // from a pool thread: no device joins meanwhile
    HardwareInfo hw;
#ifdef GGML_BACKEND_DL
    hw.backendModules = true;
#endif
    hw.cpuVariant = internal::cpuVariant();
    hw.moduleDir = internal::moduleDir();
    hw.backendProblems = internal::backendProblems();
    for (size_t i = 0; i < ggml_backend_reg_count(); ++i)
        hw.backends.emplace_back(ggml_backend_reg_name(ggml_backend_reg_get(i)));
    std::vector<GpuInfo> remote, discrete, integrated;
    internal::registeredGpus(remote, discrete, integrated);
    for (auto *list : {&remote, &discrete, &integrated})
        for (GpuInfo &g : *list)
            measureDevice(g);
    hw.gpus = llamaDeviceOrder(std::move(remote), std::move(discrete), std::move(integrated), &hw.otherBackends);
    probeCpuWeightBuffers(hw);
    readMeminfo(hw.ramTotalBytes, hw.ramAvailableBytes);
    hw.process = processMemory();
    hw.physicalCores = physicalCoreCount();
    hw.logicalCores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return hw;
}

ProcessMemory processMemory()
{
    // /proc/self/status: the kernel's counters, read in microseconds. (smaps_rollup walks every
    // mapped page: 20-30 ms with a model mapped, once a second while the offload panel shows,
    // taken from the cores that decode.)
    ProcessMemory m;
    std::ifstream in("/proc/self/status");
    std::string line;
    uint64_t file = 0, shmem = 0;
    const auto kib = [&line](const char *key, uint64_t &out) {
        const size_t n = std::strlen(key);
        if (line.compare(0, n, key) != 0)
            return false;
        out = std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
        return true;
    };
    while (std::getline(in, line)) {
        if (kib("RssAnon:", m.anonymousBytes))
            m.known = true;
        else if (!kib("RssFile:", file))
            kib("RssShmem:", shmem);
    }
    m.fileBytes = file + shmem;
    return m;
}

HeldMemory heldBetween(const HardwareInfo &before, const HardwareInfo &after)
{
    HeldMemory h;
    h.before = before.process;
    for (size_t i = 0; i < after.gpus.size() && i < before.gpus.size(); ++i) {
        const uint64_t a = before.gpus[i].freeBytes, b = after.gpus[i].freeBytes;
        h.gpuBytes.push_back(a > b ? a - b : 0);
    }
    return h;
}

uint64_t HeldMemory::ramBytes(const ProcessMemory &now) const
{
    return before.known && now.known && now.anonymousBytes > before.anonymousBytes
               ? now.anonymousBytes - before.anonymousBytes
               : 0;
}

void addHeldMemory(PlanTarget &target, const HeldMemory &held, const ProcessMemory &now)
{
    target.ramAvailableBytes = std::min(target.ramTotalBytes, target.ramAvailableBytes + held.ramBytes(now));
    for (size_t i = 0; i < target.gpus.size() && i < held.gpuBytes.size(); ++i) {
        GpuInfo &g = target.gpus[i];
        g.freeBytes = std::min(g.totalBytes, g.freeBytes + held.gpuBytes[i]);
    }
}

const std::vector<HardwareProfile> &builtinProfiles()
{
    static const std::vector<HardwareProfile> profiles = {
        {"gtx1060-6g", "GTX 1060 6 GB + 32 GB RAM", "NVIDIA GeForce GTX 1060 6GB", 6 * GiB, 32 * GiB, 6, true},
        {"rtx3060-12g", "RTX 3060 12 GB + 16 GB RAM", "NVIDIA GeForce RTX 3060", 12 * GiB, 16 * GiB, 8, true},
        {"rtx4070-12g", "RTX 4070 12 GB + 32 GB RAM", "NVIDIA GeForce RTX 4070", 12 * GiB, 32 * GiB, 8, true},
        {"rtx4090-24g", "RTX 4090 24 GB + 64 GB RAM", "NVIDIA GeForce RTX 4090", 24 * GiB, 64 * GiB, 16, true},
    };
    return profiles;
}

const HardwareProfile *findProfile(const std::string &id, const std::vector<HardwareProfile> &custom)
{
    for (const auto &p : builtinProfiles())
        if (p.id == id)
            return &p;
    for (const auto &p : custom)
        if (p.id == id)
            return &p;
    return nullptr;
}

std::vector<GpuInfo> llamaDeviceOrder(std::vector<GpuInfo> remote, std::vector<GpuInfo> discrete,
                                      std::vector<GpuInfo> integrated, std::vector<GpuInfo> *skipped)
{
    // Remote devices first, to keep the network's share of a token small (llama_model_load).
    std::vector<GpuInfo> out = std::move(remote);
    const size_t firstGpu = out.size();
    for (GpuInfo &g : discrete) {
        const auto twin = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(firstGpu), out.end(), [&](const GpuInfo &o) {
            return !g.cardId.empty() && o.cardId == g.cardId;
        });
        if (twin != out.end()) {
            twin->sameCard.push_back(g.name);
            if (skipped) {
                g.sameCard = {twin->name};
                skipped->push_back(std::move(g));
            }
        } else {
            out.push_back(std::move(g));
        }
    }
    // Integrated GPUs seen by several backends: those of the first one's backend only.
    if (out.size() == firstGpu) {
        for (GpuInfo &g : integrated)
            if (out.size() == firstGpu || backendOf(g.name) == backendOf(out[firstGpu].name))
                out.push_back(std::move(g));
    }
    return out;
}

void capDevice(GpuInfo &device, uint64_t bytes)
{
    device.totalBytes = std::min(device.totalBytes, bytes);
    device.freeBytes = std::min(device.freeBytes, bytes);
}

PlanTarget targetFromHardware(const HardwareInfo &hw, uint64_t vramBudgetBytes)
{
    return targetFromHardware(hw, vramBudgetBytes > 0 ? std::vector<uint64_t>{vramBudgetBytes} : std::vector<uint64_t>{});
}

PlanTarget targetFromHardware(const HardwareInfo &hw, const std::vector<uint64_t> &deviceBudgetBytes)
{
    PlanTarget t;
    t.name = "this computer";
    t.gpus = hw.gpus;
    t.otherBackends = hw.otherBackends;
    for (size_t i = 0; i < t.gpus.size(); ++i) {
        const uint64_t budget = deviceBudgetBytes.size() == 1 ? deviceBudgetBytes[0]
                                : i < deviceBudgetBytes.size() ? deviceBudgetBytes[i]
                                                               : 0;
        if (budget == 0)
            continue;
        capDevice(t.gpus[i], budget);
        for (GpuInfo &twin : t.otherBackends) // the card's budget, whichever backend runs it
            if (!twin.sameCard.empty() && twin.sameCard.front() == t.gpus[i].name)
                capDevice(twin, budget);
    }
    t.ramTotalBytes = hw.ramTotalBytes;
    t.ramAvailableBytes = hw.ramAvailableBytes;
    t.physicalCores = hw.physicalCores;
    t.cpuAmx = std::find(hw.cpuWeightBuffers.begin(), hw.cpuWeightBuffers.end(), "AMX") != hw.cpuWeightBuffers.end();
    t.cpuRepackTypes = hw.cpuRepackTypes;
    return t;
}

PlanTarget targetFromProfile(const HardwareProfile &p)
{
    PlanTarget t;
    t.name = p.name;
    t.isProfile = true;
    GpuInfo g;
    g.name = "GPU0";
    g.description = p.gpuName;
    g.totalBytes = p.vramBytes;
    g.freeBytes = p.vramBytes > kProfileDesktopReserve ? p.vramBytes - kProfileDesktopReserve : 0;
    t.gpus.push_back(g);
    t.ramTotalBytes = p.ramBytes;
    // The desktop and the OS keep about 3 GiB of RAM busy.
    t.ramAvailableBytes = p.ramBytes > 3 * GiB ? p.ramBytes - 3 * GiB : p.ramBytes / 2;
    t.physicalCores = p.physicalCores;
    return t;
}

} // namespace shoehorn
