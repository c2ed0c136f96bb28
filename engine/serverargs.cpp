#include "serverargs.h"

#include "backends.h"
#include "llamahandles.h"
#include "serverargsdata.h"

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
#include <fstream>
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

// --n-cpu-moe N is N overrides "blk\.i<experts>" -> CPU, --cpu-moe one "<experts>" -> CPU. Any
// other override (-ot, --n-cpu-ffn) is a placement Shoehorn's planner does not make.
Error readCpuMoe(const common_params &p, int &layers)
{
    const ggml_backend_buffer_type_t cpu = ggml_backend_cpu_buffer_type();
    layers = 0;
    for (const auto &o : p.tensor_buft_overrides) {
        if (!o.pattern)
            break;
        const std::string pattern = o.pattern;
        if (o.buft == cpu && pattern == LLM_FFN_EXPS_REGEX) {
            layers = INT32_MAX; // every layer (clamped to the model's count when planned)
            continue;
        }
        if (o.buft == cpu && pattern == llm_ffn_block_regex(layers == INT32_MAX ? 0 : layers, LLM_FFN_EXPS_REGEX)) {
            if (layers != INT32_MAX)
                ++layers;
            continue;
        }
        return Error{ErrorCode::InvalidArgument,
                     "-ot/--override-tensor and --n-cpu-ffn (\"" + pattern +
                         "\"): Shoehorn places tensors itself; use -ngl N with --n-cpu-moe N or --cpu-moe"};
    }
    return {};
}

// What llama-server takes and Shoehorn does not, checked on the parsed parameters.
Error checkSupported(const common_params &p)
{
    const auto refuse = [](const std::string &flag, const std::string &why) {
        return Error{ErrorCode::InvalidArgument, flag + ": " + why};
    };
    if (!p.model.hf_repo.empty() || !p.model.url.empty() || !p.mmproj.hf_repo.empty() || !p.mmproj.url.empty())
        return refuse("-hf/-mu", "Shoehorn does not download models; give the file with -m");
    if (!p.lora_adapters.empty())
        return refuse("--lora", "LoRA adapters are not supported");
    if (p.embedding)
        return refuse("--embedding/--rerank", "Shoehorn serves chat and completion models");
    if (!p.models_dir.empty())
        return refuse("--models-dir", "give the models in a --models-preset file");
    if (!p.ssl_file_key.empty() || !p.ssl_file_cert.empty())
        return refuse("--ssl-key-file/--ssl-cert-file", "this build has no TLS; put a reverse proxy in front");
    if (!p.public_path.empty())
        return refuse("--path", "the web UI is built in");
    if (p.sleep_idle_seconds > 0)
        return refuse("--sleep-idle-seconds",
                      "Shoehorn keeps the model loaded until it stops (no sleep mode; stop the service to free the memory)");
    if (p.ui_mcp_proxy)
        return refuse("--ui-mcp-proxy", "the web UI's MCP proxy is not served (a page could reach any address through it)");
    if (!p.server_tools.empty())
        return refuse("--tools", "the server's built-in tools (read and write files, run shell commands for any client) "
                                 "are not served");
    if (!p.mcp_servers_config.empty() || !p.mcp_servers_json.empty())
        return refuse("--mcp-servers-config/--mcp-servers-json",
                      "MCP servers (programs the server starts and calls for its clients) are not run");
    int layers = 0;
    return readCpuMoe(p, layers);
}

// The value after `flag` on the command line (the last one given), or "".
std::string valueOf(const std::vector<std::string> &given, const std::string &flag)
{
    std::string value;
    for (size_t i = 0; i + 1 < given.size(); ++i)
        if (given[i] == flag)
            value = given[i + 1];
    return value;
}

bool has(const std::vector<std::string> &given, std::initializer_list<const char *> flags)
{
    return std::any_of(given.begin(), given.end(), [&](const std::string &a) {
        return std::any_of(flags.begin(), flags.end(), [&](const char *f) { return a == f; });
    });
}

// llama.cpp's parser says "error while handling argument "-ngl": stoi" for a value that is not a
// number: the flag, the value and what was wrong instead.
std::string clearerParseError(std::string said, const std::vector<std::string> &given)
{
    const std::string head = "error while handling argument \"";
    const auto at = said.find(head);
    const auto quote = at == std::string::npos ? std::string::npos : said.find('"', at + head.size());
    if (quote == std::string::npos || said.compare(quote, 3, "\": ") != 0)
        return said;
    const std::string flag = said.substr(at + head.size(), quote - at - head.size());
    const auto end = said.find('\n', quote);
    const std::string why = said.substr(quote + 3, end == std::string::npos ? std::string::npos : end - quote - 3);
    const std::string value = valueOf(given, flag);
    if (why != "stoi" && why != "stof" && why != "stoul" && why != "stoull" && why != "stod")
        return said;
    // std::stoi says the same for "abc" and for a number past int's range.
    const size_t sign = !value.empty() && value[0] == '-' ? 1 : 0;
    const bool digits = value.size() > sign && value.find_first_not_of("0123456789", sign) == std::string::npos;
    if (digits)
        return flag + " " + value + ": out of range";
    return flag + " " + value + ": not a number" + (why == "stoi" ? " (a whole number is wanted)" : "");
}

// A file llama.cpp's parser would read whole: a regular file of a sane size, or why not. (A fifo
// blocked the parser, /dev/zero filled memory.)
Error checkReadable(const std::string &flag, const std::string &path, uintmax_t maxBytes)
{
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(st))
        return Error{ErrorCode::InvalidArgument, flag + " " + path + ": no such file"};
    if (!std::filesystem::is_regular_file(st))
        return Error{ErrorCode::InvalidArgument, flag + " " + path + ": not a regular file (" +
                                                     (std::filesystem::is_directory(st) ? "a folder" : "a pipe or a device") +
                                                     "): give a file"};
    if (std::filesystem::file_size(path, ec) > maxBytes)
        return Error{ErrorCode::InvalidArgument, flag + " " + path + ": larger than " + std::to_string(maxBytes / 1024) +
                                                     " KiB; is it the right file?"};
    return {};
}

// --api-key-file as llama.cpp reads it (one key per line, # starts a comment), checked first so
// that a file with no key is refused: serve would otherwise run with no key at all.
Error checkKeyFile(const std::string &path)
{
    if (Error e = checkReadable("--api-key-file", path, 64 * 1024))
        return e;
    std::ifstream in(path);
    if (!in)
        return Error{ErrorCode::InvalidArgument, "--api-key-file " + path + ": cannot be read (" + std::strerror(errno) + ")"};
    std::string line;
    int n = 0, keys = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#')
            continue;
        if (line.back() == '\r') // llama.cpp would keep it in the key, which no client then sends
            return Error{ErrorCode::InvalidArgument, "--api-key-file " + path + ", line " + std::to_string(n) +
                                                         ": ends in a carriage return (a Windows text file?); save it "
                                                         "with Unix line ends"};
        if (line.find_first_of(" \t\r,") != std::string::npos || line.find('\0') != std::string::npos)
            return Error{ErrorCode::InvalidArgument, "--api-key-file " + path + ", line " + std::to_string(n) +
                                                         ": a key with white space, a comma or a NUL in it"};
        ++keys;
    }
    if (!keys)
        return Error{ErrorCode::InvalidArgument, "--api-key-file " + path +
                                                     " holds no key (one per line; lines starting with # are comments)"};
    return {};
}

// Before llama.cpp's parser: the files it reads itself.
Error checkFilesGiven(const std::vector<std::string> &given)
{
    std::string keyFile = valueOf(given, "--api-key-file");
    if (keyFile.empty() && !has(given, {"--api-key-file"}))
        if (const char *env = std::getenv("LLAMA_ARG_API_KEY_FILE"))
            keyFile = env;
    if (!keyFile.empty())
        if (Error e = checkKeyFile(keyFile))
            return e;
    // A missing preset file is named when the presets are read (ServerArgs::presets).
    if (const std::string preset = valueOf(given, "--models-preset"); !preset.empty() && std::filesystem::exists(preset))
        if (Error e = checkReadable("--models-preset", preset, 16 * 1024 * 1024))
            return e;
    return {};
}

// Values llama.cpp's parser takes and that cannot work: refused with the flag's name.
Error checkValues(const common_params &p, const std::vector<std::string> &given)
{
    const auto refuse = [](const std::string &what) { return Error{ErrorCode::InvalidArgument, what}; };
    if (p.n_ctx < 0)
        return refuse("-c " + std::to_string(p.n_ctx) + ": give 0 (the model's trained context) or a number of tokens");
    // -ub 0 is llama.cpp's "as -b".
    if (p.n_batch < 1 || p.n_ubatch < 0)
        return refuse((p.n_batch < 1 ? "-b " + std::to_string(p.n_batch) : "-ub " + std::to_string(p.n_ubatch)) +
                      ": the batch must hold at least one token");
    // llama.cpp's sequences (LLAMA_MAX_SEQ, src/llama-cparams.h): more failed only after the
    // model had loaded.
    constexpr int kMaxSlots = 256;
    if (p.n_parallel > kMaxSlots)
        return refuse("-np " + std::to_string(p.n_parallel) + ": llama.cpp serves at most " +
                      std::to_string(kMaxSlots) + " slots");
    // llama.cpp reserves an output per slot in every micro-batch (and asserts it fits).
    const int slots = p.n_parallel < 0 ? 4 : p.n_parallel;
    const int ubatch = p.n_ubatch == 0 ? p.n_batch : std::min(p.n_batch, p.n_ubatch);
    if (ubatch < slots)
        return refuse((p.n_batch < slots ? "-b " + std::to_string(p.n_batch) : "-ub " + std::to_string(p.n_ubatch)) +
                      ": a batch holds one token of each slot at least, and there are " + std::to_string(slots) +
                      " slots (--parallel " + std::to_string(slots) + "): give -b and -ub " + std::to_string(slots) +
                      " or more, or fewer slots");
    if (p.api_keys.empty() && has(given, {"--api-key"}))
        return refuse("--api-key: empty (give a key, or leave --api-key out for a server without one)");
    return {};
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
    if (Error e = checkFilesGiven(given))
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
                                          : clearerParseError(said, given))};
    if (Error e = checkSupported(d->params))
        return e;
    if (Error e = checkValues(d->params, given))
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
    readCpuMoe(p, s.cpuMoeLayers);
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
