// Which GPUs a model uses: llama.cpp's default selection, a backend chosen for cards several
// backends see, or llama.cpp's --device list.
#include "hardware.h"

#include "backends.h"
#include "devices.h"

#include <ggml-backend.h>

#include <algorithm>

namespace shoehorn {

std::string backendOf(const std::string &deviceName)
{
    return deviceName.substr(0, deviceName.find_first_of("0123456789"));
}

std::vector<GpuInfo> modelDevices(const std::vector<GpuInfo> &gpus, const std::vector<GpuInfo> &otherBackends,
                                  const LoadSettings &load)
{
    std::vector<GpuInfo> out;
    if (!load.devices.empty()) {
        for (const std::string &name : load.devices) {
            for (const auto *list : {&gpus, &otherBackends}) {
                const auto it = std::find_if(list->begin(), list->end(), [&](const GpuInfo &g) { return g.name == name; });
                if (it != list->end()) {
                    out.push_back(*it);
                    break;
                }
            }
        }
        return out;
    }
    out = gpus;
    if (load.backend.empty())
        return out;
    for (GpuInfo &g : out) {
        if (backendOf(g.name) == load.backend)
            continue;
        const auto twin = std::find_if(otherBackends.begin(), otherBackends.end(), [&](const GpuInfo &o) {
            return backendOf(o.name) == load.backend && !o.sameCard.empty() && o.sameCard.front() == g.name;
        });
        if (twin != otherBackends.end()) {
            GpuInfo chosen = *twin;
            chosen.sameCard = {g.name};
            g = std::move(chosen);
        }
    }
    return out;
}

std::vector<std::string> backendChoices(const std::vector<GpuInfo> &gpus)
{
    std::vector<std::string> out;
    for (const GpuInfo &g : gpus) {
        if (g.sameCard.empty())
            continue;
        for (const std::string &name : g.sameCard) {
            for (const std::string &b : {backendOf(g.name), backendOf(name)})
                if (std::find(out.begin(), out.end(), b) == out.end())
                    out.push_back(b);
        }
    }
    return out;
}

namespace internal {

void registeredGpus(std::vector<GpuInfo> &remote, std::vector<GpuInfo> &discrete, std::vector<GpuInfo> &integrated)
{
    initBackends();
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        const auto type = ggml_backend_dev_type(dev);
        if (type != GGML_BACKEND_DEVICE_TYPE_GPU && type != GGML_BACKEND_DEVICE_TYPE_IGPU)
            continue;
        GpuInfo g;
        g.name = ggml_backend_dev_name(dev);
        g.description = ggml_backend_dev_description(dev);
        g.remote = std::string(ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev))) == "RPC";
        ggml_backend_dev_props props{};
        ggml_backend_dev_get_props(dev, &props);
        g.cardId = props.device_id ? props.device_id : "";
        (g.remote ? remote : type == GGML_BACKEND_DEVICE_TYPE_GPU ? discrete : integrated).push_back(std::move(g));
    }
}

std::optional<std::vector<ggml_backend_dev_t>> modelDeviceHandles(const LoadSettings &load)
{
    if (load.devices.empty() && load.backend.empty())
        return std::nullopt; // llama.cpp's own selection
    std::vector<ggml_backend_dev_t> out;
    if (load.devices != std::vector<std::string>{"none"}) {
        std::vector<GpuInfo> remote, discrete, integrated, skipped;
        registeredGpus(remote, discrete, integrated);
        const auto used = llamaDeviceOrder(std::move(remote), std::move(discrete), std::move(integrated), &skipped);
        for (const GpuInfo &g : modelDevices(used, skipped, load))
            if (ggml_backend_dev_t dev = ggml_backend_dev_by_name(g.name.c_str()))
                out.push_back(dev);
    }
    out.push_back(nullptr); // llama_model_params::devices ends with null
    return out;
}

} // namespace internal

Error checkDevices(const LoadSettings &load)
{
    if (load.devices.empty() || load.devices == std::vector<std::string>{"none"})
        return {};
    std::vector<GpuInfo> remote, discrete, integrated;
    internal::registeredGpus(remote, discrete, integrated);
    std::string there;
    for (const auto *list : {&remote, &discrete, &integrated})
        for (const GpuInfo &g : *list)
            there += (there.empty() ? "" : ", ") + g.name;
    for (const std::string &name : load.devices) {
        const auto has = [&](const std::vector<GpuInfo> &l) {
            return std::any_of(l.begin(), l.end(), [&](const GpuInfo &g) { return g.name == name; });
        };
        if (!has(remote) && !has(discrete) && !has(integrated))
            return Error{ErrorCode::InvalidArgument,
                         "--device " + name + ": no such device here (" +
                             (there.empty() ? std::string("no GPU: only \"none\"") : "devices: " + there) + ")"};
    }
    return {};
}

Error checkDevicePositions(const LoadSettings &load, std::optional<size_t> gpuCount, const std::string &where)
{
    if (load.mainGpu == 0 && load.tensorSplit.empty())
        return {};
    const bool none = load.devices == std::vector<std::string>{"none"};
    size_t n = 0;
    if (none)
        n = 0;
    else if (!load.devices.empty())
        n = load.devices.size(); // names checkDevices() accepted, integrated GPUs too
    else if (gpuCount)
        n = *gpuCount;
    else {
        const HardwareInfo hw = probeHardware();
        n = modelDevices(hw.gpus, hw.otherBackends, load).size();
    }
    const std::string gets = none ? std::string("-dev none: the model runs on the CPU")
                             : n == 0 ? "no GPU " + where + ": the model runs on the CPU"
                                      : "the model gets " + std::to_string(n) + (n == 1 ? " GPU " : " GPUs ") + where;
    if (load.mainGpu > 0 && size_t(load.mainGpu) >= n)
        return Error{ErrorCode::InvalidArgument,
                     "-mg " + std::to_string(load.mainGpu) + ": " + gets +
                         (n == 0 ? "" : " (-mg 0" + (n > 1 ? " to " + std::to_string(n - 1) : std::string()) + ")")};
    if (load.tensorSplit.size() > n)
        return Error{ErrorCode::InvalidArgument, "-ts " + tensorSplitText(load.tensorSplit) + ": " +
                                                     std::to_string(load.tensorSplit.size()) + " parts, and " + gets};
    return {};
}

} // namespace shoehorn
