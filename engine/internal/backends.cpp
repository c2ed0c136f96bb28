#include "backends.h"

#include "cudacards.h"

#include "logcapture.h"

#include <ggml-backend-impl.h> // GGML_BACKEND_API_VERSION, struct ggml_backend_reg
#include <ggml-cpu.h>
#include <llama.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace fs = std::filesystem;

namespace shoehorn::internal {

namespace {

struct Loaded {
    std::string dir;
    std::string cpuVariant = "built in";
    std::vector<BackendProblem> problems;
};

fs::path programDir()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

bool holdsCpuModules(const fs::path &dir)
{
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind("libggml-cpu-", 0) == 0)
            return true;
    return false;
}

std::string findModuleDir()
{
    if (const char *env = std::getenv("SHOEHORN_BACKEND_DIR"); env && *env)
        return env;
    const fs::path here = programDir();
    if (holdsCpuModules(here))
        return here.string();
    return (here.parent_path() / "lib" / "shoehorn").lexically_normal().string();
}

// The file a function of a loaded module lives in: which CPU variant ggml chose.
std::string moduleFileOf(const void *symbol)
{
    Dl_info info{};
    if (!symbol || !dladdr(symbol, &info) || !info.dli_fname)
        return {};
    return fs::path(info.dli_fname).filename().string();
}

// Why a GPU backend gave no device: no module in the directory, a module the loader refused
// (its driver library missing: dlerror names it), or a module without devices.
void lookFor(const char *regName, const char *file, Loaded &out)
{
    const fs::path path = fs::path(out.dir) / file;
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        out.problems.push_back({regName, BackendProblem::Kind::NoModule, path.string()});
        return;
    }
    if (ggml_backend_reg_t reg = ggml_backend_reg_by_name(regName)) {
        const bool explained = std::any_of(out.problems.begin(), out.problems.end(),
                                           [regName](const BackendProblem &p) { return p.backend == regName; });
        if (ggml_backend_reg_dev_count(reg) == 0 && !explained)
            out.problems.push_back({regName, BackendProblem::Kind::NoDevice, path.string()});
        return;
    }
    // ggml says why only in its log: ask the loader, then the module's own entry point.
    std::string why;
    if (void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        const auto init = reinterpret_cast<ggml_backend_init_t>(dlsym(h, "ggml_backend_init"));
        const ggml_backend_reg_t reg = init ? init() : nullptr;
        const int api = reg ? reg->api_version : 0;
        why = !init  ? "it is not a ggml backend module (no ggml_backend_init)"
              : !reg ? "its backend did not start (ggml_backend_init returned nothing: a driver problem?)"
                     : "it was built for another ggml (backend API " + std::to_string(api) + ", this one " +
                           std::to_string(GGML_BACKEND_API_VERSION) + ")";
        dlclose(h);
    } else {
        const char *e = dlerror();
        why = e ? e : "the loader refused it";
        // The CUDA module links the driver's library: without it, the driver is not installed.
        if (why.find("libcuda.so.1") != std::string::npos) {
            out.problems.push_back({regName, BackendProblem::Kind::NoDriver, "libcuda.so.1"});
            return;
        }
    }
    out.problems.push_back({regName, BackendProblem::Kind::ModuleFailed, why});
}

// ggml's own choice (ggml_backend_load_best): the CPU module whose score for this CPU is highest.
std::string bestCpuModule(const std::string &dir)
{
    std::string best;
    int bestScore = 0;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("libggml-cpu-", 0) != 0 || it->path().extension() != ".so")
            continue;
        void *h = dlopen(it->path().c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h)
            continue;
        using Score = int (*)();
        if (auto score = reinterpret_cast<Score>(dlsym(h, "ggml_backend_score"))) {
            const int s = score();
            if (s > bestScore) {
                bestScore = s;
                best = it->path().string();
            }
        }
        dlclose(h);
    }
    return best;
}

// Before the CUDA module starts CUDA: the cards its code runs on stay visible to it
// (CUDA_VISIBLE_DEVICES, by UUID), the others are left to Vulkan, each with its reason. A
// CUDA_VISIBLE_DEVICES the user set is theirs.
void chooseCudaCards(Loaded &out)
{
    const fs::path module = fs::path(out.dir) / "libggml-cuda.so";
    std::error_code ec;
    if (!fs::exists(module, ec))
        return;
    const NvidiaDriver driver = queryNvidiaDriver();
    if (!driver.present)
        return; // the module's own load says what is missing (lookFor)
    if (driver.cudaVersion > 0 && driver.cudaVersion < 13000) {
        out.problems.push_back({"CUDA", BackendProblem::Kind::DriverTooOld,
                                std::to_string(driver.cudaVersion / 1000) + "." +
                                    std::to_string(driver.cudaVersion % 1000 / 10)});
        if (!std::getenv("CUDA_VISIBLE_DEVICES"))
            setenv("CUDA_VISIBLE_DEVICES", "", 1); // nothing for the module to fail on
        return;
    }
    const std::vector<CudaCode> code = cudaModuleCode(module.string());
    if (code.empty())
        return; // not a module we can read: let CUDA decide
    std::string visible;
    std::vector<BackendProblem> left;
    for (const NvidiaCard &c : driver.cards) {
        if (cudaRuns(code, c.major, c.minor))
            visible += (visible.empty() ? "" : ",") + c.uuid;
        else
            left.push_back({"CUDA", BackendProblem::Kind::CardNotCovered,
                            c.name + " (" + std::to_string(c.major) + "." + std::to_string(c.minor) +
                                "); the module's code: " + cudaArchList(code)});
    }
    // Only when a card must be hidden (CUDA's own order stays otherwise), by UUID; when a card did
    // not answer (no UUID to keep it by), CUDA gets none rather than one it has no code for. A
    // CUDA_VISIBLE_DEVICES the user set is theirs (nothing is claimed then).
    if (left.empty() || std::getenv("CUDA_VISIBLE_DEVICES"))
        return;
    setenv("CUDA_VISIBLE_DEVICES", driver.complete ? visible.c_str() : "", 1);
    out.problems.insert(out.problems.end(), left.begin(), left.end());
}

Loaded &state()
{
    static Loaded s;
    return s;
}

// The CPU backend and RPC: what every process needs (the helpers that read a file need no GPU).
void loadCpu()
{
    static std::once_flag once;
    std::call_once(once, [] {
        LogCapture::installLogger(); // ggml's "loaded ... backend" lines go to the log, not stderr
#ifdef GGML_BACKEND_DL
        Loaded &s = state();
        s.dir = findModuleDir();
        const std::string cpu = bestCpuModule(s.dir);
        if (cpu.empty() || !ggml_backend_load(cpu.c_str())) {
            s.cpuVariant.clear();
            s.problems.push_back({"CPU", BackendProblem::Kind::NoModule, s.dir});
        } else {
            ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
            const std::string f = moduleFileOf(
                dev ? ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(dev), "ggml_backend_get_features")
                    : nullptr);
            s.cpuVariant = f.rfind("libggml-cpu-", 0) == 0 ? f.substr(12, f.find('.') - 12) : f;
        }
        if (const fs::path rpc = fs::path(s.dir) / "libggml-rpc.so"; fs::exists(rpc))
            ggml_backend_load(rpc.c_str());
#endif
        // After the modules: with no backend registered yet, llama_backend_init loads every module
        // from the program's folder and the current directory (ggml_backend_load_all).
        llama_backend_init();
    });
}

// Every module found (GPU backends too), and what was looked for and not found.
const Loaded &loaded()
{
    loadCpu();
    static std::once_flag once;
    std::call_once(once, [] {
#ifdef GGML_BACKEND_DL
        Loaded &s = state();
        chooseCudaCards(s);
        ggml_backend_load_all_from_path(s.dir.c_str());
        lookFor("Vulkan", "libggml-vulkan.so", s);
        lookFor("CUDA", "libggml-cuda.so", s);
#endif
    });
    return state();
}

} // namespace

void initBackends(bool gpus)
{
    if (gpus)
        (void)loaded();
    else
        loadCpu();
}

std::string moduleDir()
{
    loadCpu();
    return state().dir;
}

std::string cpuVariant()
{
    loadCpu();
    return state().cpuVariant;
}

std::vector<BackendProblem> backendProblems()
{
    return loaded().problems;
}

std::shared_mutex &deviceRegistry()
{
    static std::shared_mutex m;
    return m;
}

ggml_backend_dev_t cpuDevice()
{
    loadCpu();
    return ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
}

ggml_backend_buffer_type_t cpuBufferType()
{
    ggml_backend_dev_t cpu = cpuDevice();
    return cpu ? ggml_backend_dev_buffer_type(cpu) : nullptr;
}

void *cpuProc(const char *name)
{
    ggml_backend_dev_t cpu = cpuDevice();
    return cpu ? ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(cpu), name) : nullptr;
}

void *rpcProc(const char *name)
{
    loadCpu();
    ggml_backend_reg_t rpc = ggml_backend_reg_by_name("RPC");
    return rpc ? ggml_backend_reg_get_proc_address(rpc, name) : nullptr;
}

bool cpuMultiplies(ggml_type type)
{
#ifdef GGML_BACKEND_DL
    // ggml_get_type_traits_cpu lives in the CPU module ggml chose: look it up there.
    initBackends();
    using TraitsFn = const ggml_type_traits_cpu *(*)(ggml_type);
    static const TraitsFn traits = []() -> TraitsFn {
        Dl_info info{};
        const void *inModule = cpuProc("ggml_backend_get_features");
        if (!inModule || !dladdr(inModule, &info) || !info.dli_fname)
            return nullptr;
        void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        return h ? reinterpret_cast<TraitsFn>(dlsym(h, "ggml_get_type_traits_cpu")) : nullptr;
    }();
    return traits && traits(type)->vec_dot;
#else
    return ggml_get_type_traits_cpu(type)->vec_dot != nullptr;
#endif
}

} // namespace shoehorn::internal
