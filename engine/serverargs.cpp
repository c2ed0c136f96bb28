#include "serverargs.h"

#include "backends.h"
#include "llamahandles.h"
#include "serverargchecks.h"
#include "serverargsdata.h"
#include "validate.h"

#include <arg.h>
#include <ggml.h>
#include <preset.h>
#include <speculative.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace shoehorn {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// llama.cpp's parser prints its error (and warnings) to stderr and, for a few errors, exits.
// While it runs, stderr goes to a file; afterwards the text is the error's detail or goes back to
// stderr. Should the parser exit, the handler puts it back first, so the message is never lost.
class CapturedStderr
{
public:
    CapturedStderr()
    {
        std::fflush(stderr);
        m_file = std::tmpfile();
        if (!m_file)
            return;
        m_saved = ::dup(STDERR_FILENO);
        ::dup2(::fileno(m_file), STDERR_FILENO);
        s_active = this;
        static std::once_flag once;
        std::call_once(once, [] { std::atexit([] {
                           if (s_active)
                               s_active->release(true);
                       }); });
    }
    ~CapturedStderr() { release(false); }
    // Restores stderr; the captured text (echoed to stderr when `echo`).
    std::string release(bool echo)
    {
        if (!m_file)
            return m_text;
        std::fflush(stderr);
        ::dup2(m_saved, STDERR_FILENO);
        ::close(m_saved);
        std::rewind(m_file);
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, m_file)) > 0)
            m_text.append(buf, n);
        std::fclose(m_file);
        m_file = nullptr;
        s_active = nullptr;
        if (echo)
            std::fputs(m_text.c_str(), stderr);
        return m_text;
    }

private:
    static inline CapturedStderr *s_active = nullptr;
    std::FILE *m_file = nullptr;
    int m_saved = -1;
    std::string m_text;
};

const char *g_helpNote = nullptr;
void printNote(int, char **)
{
    if (g_helpNote)
        std::printf("\n%s\n", g_helpNote);
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    while (!s.empty() && s.front() == '\n')
        s.erase(s.begin());
    if (s.rfind("error: ", 0) == 0) // the caller says "error:" itself
        s.erase(0, 7);
    return s;
}

std::vector<char *> argvOf(std::vector<std::string> &args)
{
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    return argv;
}

} // namespace

const common_params &internal::Access::params(const ServerArgs &a)
{
    return a.m_data->params;
}

ServerArgs::ServerArgs()
{
    // Shoehorn's modules first: llama.cpp's parser loads ggml's default search path for -ot,
    // --device, --rpc and --list-devices when nothing is loaded yet.
    internal::initBackends();
    auto d = std::make_shared<internal::ServerArgsData>();
    common_params_parser_init(d->params, LLAMA_EXAMPLE_SERVER); // the server's own defaults
    m_data = std::move(d);
}

std::vector<std::pair<std::string, std::string>> ServerArgs::unsupported()
{
    return {
        {"-hf, -mu", "Shoehorn does not download models: give the file with -m"},
        {"--lora", "LoRA adapters are not supported"},
        {"--embedding, --rerank", "Shoehorn serves chat and completion models"},
        {"--models-dir", "give the models in a --models-preset file"},
        {"--ssl-key-file, --ssl-cert-file", "no TLS in this build: put a reverse proxy in front"},
        {"--path", "the web UI is built in"},
        {"-ot, --n-cpu-ffn", "Shoehorn places tensors itself: -ngl with --n-cpu-moe or --cpu-moe"},
        {"--tools", "the built-in tools (files, shell commands) are not served"},
        {"--mcp-servers-config, --mcp-servers-json", "MCP servers are not run"},
        {"--cache-ram N", "no host-RAM prompt cache (memory stays as planned); 0 is taken"},
    };
}

Result<ServerArgs> ServerArgs::parse(const std::vector<std::string> &given, const char *note)
{
    internal::initBackends(); // before llama.cpp's parser, as above
    std::vector<std::string> args{"shoehorn-cli serve"};
    args.insert(args.end(), given.begin(), given.end());
    auto argv = argvOf(args);
    auto d = std::make_shared<internal::ServerArgsData>();
    d->args = given;
    const bool help = std::any_of(given.begin(), given.end(),
                                  [](const std::string &a) { return a == "-h" || a == "--help" || a == "--usage"; });
    if (help) {
        g_helpNote = note;
        common_params_parse(int(args.size()), argv.data(), d->params, LLAMA_EXAMPLE_SERVER, printNote); // exits 0
    }
    if (Error e = internal::checkFilesGiven(given))
        return e;
    bool ok = false;
    std::string said;
    {
        CapturedStderr capture;
        try {
            ok = common_params_parse(int(args.size()), argv.data(), d->params, LLAMA_EXAMPLE_SERVER);
        } catch (const std::exception &e) {
            said = e.what();
        }
        const std::string text = capture.release(ok);
        if (said.empty())
            said = text;
    }
    if (!ok)
        return Error{ErrorCode::InvalidArgument,
                     trimmed(said.empty() ? "llama-server's argument parser refused the command line"
                                          : internal::clearerParseError(said, given))};
    if (Error e = internal::checkSupported(d->params))
        return e;
    if (Error e = internal::checkValues(d->params, given))
        return e;
    // llama-server's host-RAM prompt cache is on by default there (8 GiB) and off here: the memory
    // a user planned is the memory serve takes. Asked for by name, it is refused, not ignored.
    const bool cacheRamGiven = std::any_of(given.begin(), given.end(), [](const std::string &a) {
        return a == "-cram" || a == "--cache-ram" || a.rfind("--cache-ram=", 0) == 0;
    });
    if (cacheRamGiven && d->params.cache_ram_mib != 0)
        return Error{ErrorCode::InvalidArgument,
                     "--cache-ram: the host-RAM prompt cache is not kept (memory stays as planned); "
                     "only --cache-ram 0 is taken"};
    ServerArgs out;
    out.m_data = std::move(d);
    return out;
}

std::string ServerArgs::modelPath() const { return m_data->params.model.path; }
std::string ServerArgs::alias() const
{
    return m_data->params.model_alias.empty() ? std::string() : *m_data->params.model_alias.begin();
}
std::string ServerArgs::mmprojPath() const { return m_data->params.no_mmproj ? std::string() : m_data->params.mmproj.path; }
bool ServerArgs::mmprojOffload() const { return m_data->params.mmproj_use_gpu; }
std::string ServerArgs::modelsPreset() const { return m_data->params.models_preset; }

LoadSettings ServerArgs::load() const
{
    const common_params &p = m_data->params;
    LoadSettings s;
    s.gpuLayers = p.n_gpu_layers >= 0 ? p.n_gpu_layers : -1; // auto and "all": every layer, unless fitted
    internal::readCpuMoe(p, s.cpuMoeLayers);
    s.mainGpu = p.main_gpu;
    if (tensorSplitGiven())
        s.tensorSplit.assign(std::begin(p.tensor_split), std::end(p.tensor_split));
    while (!s.tensorSplit.empty() && s.tensorSplit.back() <= 0)
        s.tensorSplit.pop_back();
    // --device: the names (parse_device_list ends the list with null; "none" is null alone).
    for (ggml_backend_dev_t dev : p.devices)
        if (dev)
            s.devices.emplace_back(ggml_backend_dev_name(dev));
    if (!p.devices.empty() && s.devices.empty())
        s.devices = {"none"};
    s.mtpLayers = std::find(p.speculative.types.begin(), p.speculative.types.end(), COMMON_SPECULATIVE_TYPE_DRAFT_MTP) !=
                  p.speculative.types.end();
    switch (p.load_mode) {
    case LLAMA_LOAD_MODE_NONE:
    case LLAMA_LOAD_MODE_DIRECT_IO: s.loadMode = LoadMode::NoMmap; break;
    case LLAMA_LOAD_MODE_MLOCK:
    case LLAMA_LOAD_MODE_MMAP_MLOCK: s.loadMode = LoadMode::Mlock; break;
    default: s.loadMode = LoadMode::Mmap; break;
    }
    return s;
}

ContextSettings ServerArgs::context() const
{
    const common_params &p = m_data->params;
    ContextSettings c;
    c.contextSize = uint32_t(std::max(0, p.n_ctx));
    c.batchSize = uint32_t(std::max(1, p.n_batch));
    c.ubatchSize = p.n_ubatch == 0 ? c.batchSize : uint32_t(std::max(1, p.n_ubatch)); // 0: as -b, as llama.cpp
    c.typeK = ggml_type_name(p.cache_type_k);
    c.typeV = ggml_type_name(p.cache_type_v);
    c.flashAttention = p.flash_attn_type == LLAMA_FLASH_ATTN_TYPE_ENABLED    ? FlashAttention::On
                       : p.flash_attn_type == LLAMA_FLASH_ATTN_TYPE_DISABLED ? FlashAttention::Off
                                                                             : FlashAttention::Auto;
    c.threads = std::max(0, p.cpuparams.n_threads);
    c.threadsBatch = std::max(0, p.cpuparams_batch.n_threads);
    // The parser appends --spec-type to its default ("none"): the names without it.
    std::vector<common_speculative_type> types;
    for (common_speculative_type t : p.speculative.types)
        if (t != COMMON_SPECULATIVE_TYPE_NONE)
            types.push_back(t);
    c.speculation.types = types.empty() ? "none" : common_speculative_type_name_str(types);
    c.speculation.draftModel = p.speculative.draft.mparams.path;
    c.speculation.draftMax = std::max(0, p.speculative.draft.n_max);
    c.speculation.draftMin = std::max(0, p.speculative.draft.n_min);
    c.speculation.ngramSizeN = p.speculative.ngram_simple.size_n;
    return c;
}

bool ServerArgs::gpuLayersGiven() const { return m_data->params.n_gpu_layers != -1; }
bool ServerArgs::cpuMoeGiven() const
{
    const auto &o = m_data->params.tensor_buft_overrides;
    return !o.empty() && o.front().pattern != nullptr;
}
bool ServerArgs::contextGiven() const { return m_data->params.n_ctx != 0; }
bool ServerArgs::cacheTypesGiven() const
{
    return m_data->params.cache_type_k != GGML_TYPE_F16 || m_data->params.cache_type_v != GGML_TYPE_F16;
}
bool ServerArgs::tensorSplitGiven() const
{
    const auto &ts = m_data->params.tensor_split;
    return std::any_of(std::begin(ts), std::end(ts), [](float f) { return f > 0; });
}
int ServerArgs::parallel() const { return m_data->params.n_parallel < 0 ? 4 : m_data->params.n_parallel; }
bool ServerArgs::kvUnified() const { return m_data->params.n_parallel < 0 || m_data->params.kv_unified; }
bool ServerArgs::contextShift() const { return m_data->params.ctx_shift; }
bool ServerArgs::webUi() const { return m_data->params.ui; }
int ServerArgs::maxTokens() const { return m_data->params.n_predict; }

ServeFit ServerArgs::fit() const
{
    const common_params &p = m_data->params;
    ServeFit f;
    f.on = p.fit_params;
    if (!p.fit_params_target.empty())
        f.marginMiB = p.fit_params_target.front() / kMiB;
    for (size_t m : p.fit_params_target)
        f.deviceMarginMiB.push_back(m / kMiB);
    f.minContext = uint32_t(std::max(0, p.fit_params_min_ctx));
    return f;
}

ApiServerOptions ServerArgs::http() const
{
    const common_params &p = m_data->params;
    ApiServerOptions o;
    o.host = p.hostname;
    o.port = p.port;
    o.apiKeys = p.api_keys;
    o.metrics = p.endpoint_metrics;
    o.corsOrigins = p.cors_origins_explicit ? p.cors_origins : std::string("localhost");
    return o;
}

SamplingSettings ServerArgs::sampling() const
{
    const common_params_sampling &s = m_data->params.sampling;
    SamplingSettings out;
    out.temperature = s.temp;
    out.topK = s.top_k;
    out.topP = s.top_p;
    out.minP = s.min_p;
    out.repeatPenalty = s.penalty_repeat;
    out.repeatLastN = s.penalty_last_n;
    out.presencePenalty = s.penalty_present;
    out.frequencyPenalty = s.penalty_freq;
    out.seed = s.seed;
    return out;
}

Result<std::vector<ServerPreset>> ServerArgs::presets() const
{
    const std::string file = modelsPreset();
    if (file.empty())
        return Error{ErrorCode::InvalidArgument, "no --models-preset file"};
    std::vector<ServerPreset> out;
    try {
        common_preset_context ctx(LLAMA_EXAMPLE_SERVER);
        common_preset global;
        common_presets loaded = ctx.cascade(global, ctx.load_from_ini(file, global));
        std::vector<std::string> mine{"shoehorn-cli serve"};
        mine.insert(mine.end(), m_data->args.begin(), m_data->args.end());
        auto argv = argvOf(mine);
        common_preset base = ctx.load_from_args(int(mine.size()), argv.data());
        // As llama-server's router: the router's own file and the models' names are not the models'.
        for (const char *env : {"LLAMA_ARG_MODELS_PRESET", "LLAMA_ARG_MODELS_DIR", "LLAMA_ARG_MODEL", "LLAMA_ARG_MMPROJ",
                                "LLAMA_ARG_ALIAS"})
            base.unset_option(env);
        for (auto &[name, preset] : loaded) {
            if (name == COMMON_PRESET_DEFAULT_NAME)
                continue;
            preset.merge(base);
            preset.set_option(ctx, "LLAMA_ARG_ALIAS", name);
            // A relative path is taken from the working directory, as llama-server does, or
            // else from the preset file's folder.
            for (const char *key : {"LLAMA_ARG_MODEL", "LLAMA_ARG_MMPROJ"}) {
                std::string path;
                if (!preset.get_option(key, path) || !std::filesystem::path(path).is_relative() ||
                    std::filesystem::exists(path))
                    continue;
                const auto beside = std::filesystem::path(file).parent_path() / path;
                if (std::filesystem::exists(beside))
                    preset.set_option(ctx, key, beside.string());
            }
            auto args = preset.to_args();
            auto parsed = parse(args);
            if (!parsed)
                return Error{ErrorCode::InvalidArgument, file + " [" + name + "]: " + parsed.error().detail};
            if (parsed->modelPath().empty())
                return Error{ErrorCode::InvalidArgument, file + " [" + name + "] names no model (model = PATH)"};
            out.push_back(ServerPreset{name, *parsed});
        }
    } catch (const std::exception &e) {
        return Error{ErrorCode::InvalidArgument, file + ": " + e.what()};
    }
    if (out.empty())
        return Error{ErrorCode::InvalidArgument, file + " has no model sections"};
    return out;
}

} // namespace shoehorn
