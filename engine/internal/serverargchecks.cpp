#include "serverargchecks.h"

#include "validate.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace shoehorn::internal {

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

namespace {

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

} // namespace

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

namespace {

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

} // namespace

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
    // More than llama.cpp's sequences failed only after the model had loaded.
    if (p.n_parallel > kMaxSequences)
        return refuse("-np " + std::to_string(p.n_parallel) + ": llama.cpp serves at most " +
                      std::to_string(kMaxSequences) + " slots");
    // llama.cpp reserves an output per slot in every micro-batch (and asserts it fits).
    const int slots = p.n_parallel < 0 ? 4 : p.n_parallel;
    const int ubatch = p.n_ubatch == 0 ? p.n_batch : std::min(p.n_batch, p.n_ubatch);
    if (ubatch < slots)
        return refuse((p.n_batch < slots ? "-b " + std::to_string(p.n_batch) : "-ub " + std::to_string(p.n_ubatch)) +
                      ": a batch holds one token of each slot at least, and there are " + std::to_string(slots) +
                      " slots (--parallel " + std::to_string(slots) + "): give -b and -ub " + std::to_string(slots) +
                      " or more, or fewer slots");
    // llama-server serves a model given and drops the preset without a word. Only a preset on
    // the command line: a preset's own sections name their models, and llama.cpp's parser reads
    // LLAMA_ARG_MODELS_PRESET into each of them again.
    if (!p.model.path.empty() && has(given, {"--models-preset"}))
        return refuse("--models-preset " + p.models_preset + " and the model " + p.model.path +
                      ": llama-server would serve the model alone and never load the preset's models; give -m or "
                      "--models-preset, not both");
    if (p.api_keys.empty() && has(given, {"--api-key"}))
        return refuse("--api-key: empty (give a key, or leave --api-key out for a server without one)");
    return {};
}

} // namespace shoehorn::internal
