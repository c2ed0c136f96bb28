#include "filecheck.h"
#include "backends.h"

#include "guarded.h"

#include "helperprocess.h"
#include "templatesandbox.h"

#include "chattemplate.h"
#include "logcapture.h"
#include "modelinfo.h"
#include "projector.h"

#include <common.h>
#include <llama-cpp.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace shoehorn {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

void stage(const char *name)
{
    std::fprintf(stderr, "check: %s\n", name);
    std::fflush(stderr);
}

// What the last "check: <stage>" line on stderr says the helper was doing.
std::string lastStage(const std::string &err)
{
    const size_t at = err.rfind("check: ");
    if (at == std::string::npos)
        return "reading the file";
    const size_t end = err.find('\n', at);
    const std::string s = err.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
    if (s == "template")
        return "rendering the chat template";
    if (s == "vocabulary")
        return "loading the vocabulary";
    if (s == "tokenize")
        return "tokenizing sample text";
    if (s == "projector")
        return "preparing the vision projector";
    if (s == "layout")
        return "placing the tensors and building the compute graph (llama.cpp's dry run)";
    return "reading the metadata";
}

// The line llama.cpp's abort printed (GGML_ASSERT, an uncaught exception), if any.
std::string abortLine(const std::string &err)
{
    for (const char *key : {"GGML_ASSERT", "terminate called", "what():", "error:"}) {
        const size_t at = err.rfind(key);
        if (at == std::string::npos)
            continue;
        const size_t start = err.rfind('\n', at);
        const size_t end = err.find('\n', at);
        std::string line = err.substr(start == std::string::npos ? 0 : start + 1,
                                      end == std::string::npos ? std::string::npos : end - (start == std::string::npos ? 0 : start + 1));
        if (line.size() > 300)
            line.resize(300);
        return line;
    }
    return {};
}

std::string cacheKey(const std::string &path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return {};
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(path, ec);
    return (ec ? path : canonical.string()) + '\t' + std::to_string(st.st_size) + '\t' +
           std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
}

bool cached(const std::string &cacheFile, const std::string &key)
{
    std::ifstream in(cacheFile);
    for (std::string line; std::getline(in, line);)
        if (line == key)
            return true;
    return false;
}

void remember(const std::string &cacheFile, const std::string &key)
{
    std::error_code ec;
    fs::create_directories(fs::path(cacheFile).parent_path(), ec);
    std::ofstream(cacheFile, std::ios::app) << key << '\n';
}

// Reads the helper's output until it closes both pipes, the deadline passes or `cancel` is set.
// Returns false when it stopped early (the caller kills the helper).
bool collect(internal::HelperProcess &child, std::string &out, std::string &err, Clock::time_point deadline,
             const std::atomic<bool> *cancel)
{
    for (;;) {
        if (Clock::now() >= deadline || (cancel && cancel->load()))
            return false;
        if (!child.pump(out, err, std::chrono::milliseconds(50)))
            return true;
        if (out.size() > (1u << 20))
            out.resize(1u << 20);
    }
}

Error verdictFromChild(int status, const std::string &out, const std::string &err, const std::string &file,
                       const FileCheckLimits &limits)
{
    const std::string during = lastStage(err);
    if (const int sig = internal::deadlySignal(status, err)) {
        if (sig == SIGXCPU)
            return Error{ErrorCode::FileCheckFailed, file + ": " + during + " did not finish in " + std::to_string(limits.seconds) + " s"};
        const std::string line = abortLine(err);
        if (err.find("bad_alloc") != std::string::npos || err.find("out of memory") != std::string::npos)
            return Error{ErrorCode::FileCheckFailed, file + ": " + during + " needed more than " +
                                                    formatBytes(limits.memoryBytes) + " of memory"};
        if (sig == SIGSEGV || sig == SIGBUS)
            return Error{ErrorCode::FileCheckFailed, file + ": llama.cpp crashed while " + during +
                                                    (during == "rendering the chat template"
                                                         ? " (the template nests too deeply or calls itself)"
                                                         : "")};
        if (sig == SIGFPE)
            return Error{ErrorCode::FileCheckFailed, file + ": llama.cpp crashed (a division by zero) while " + during};
        if (sig == SIGABRT)
            return Error{ErrorCode::FileCheckFailed, file + ": llama.cpp stopped while " + during +
                                                    (line.empty() ? std::string() : ": " + line)};
        return Error{ErrorCode::FileCheckFailed, file + ": the check ended by signal " + std::to_string(sig) + " while " + during};
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return Error{ErrorCode::FileCheckFailed, "the file check could not run its helper (shoehorn-cli missing?)"};
    // The helper's own verdict: {"ok": true} or {"ok": false, "code": "...", "detail": "..."}.
    const auto j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object())
        return Error{ErrorCode::FileCheckFailed, file + ": the file check gave no answer while " + during};
    if (j.value("ok", false))
        return {};
    const ErrorCode code = errorCodeFromName(j.value("code", std::string())).value_or(ErrorCode::LoadFailed);
    std::string detail = j.value("detail", std::string("the file check failed"));
    // Named once: not "a.gguf: /x/a.gguf: no such file".
    if (detail.rfind(file, 0) != 0 && detail.find("/" + file + ":") == std::string::npos)
        detail = file + ": " + detail;
    return Error{code, detail};
}

// A template that fails on a sample conversation: its own words (first line), or, when it ran
// out of memory (the helper's heap limit), the limit.
Error templateFailure(const Error &e)
{
    if (e.detail.find("bad_alloc") != std::string::npos) {
        rlimit heap{};
        ::getrlimit(RLIMIT_DATA, &heap);
        return Error{ErrorCode::FileCheckFailed,
                     "rendering the chat template needed more than " +
                         (heap.rlim_cur == RLIM_INFINITY ? std::string("all the memory") : formatBytes(heap.rlim_cur)) +
                         " of memory"};
    }
    const std::string first = e.detail.substr(0, e.detail.find('\n'));
    return Error{ErrorCode::TemplateFailed, "the chat template fails on a sample conversation: " + first};
}

// Loads the model's layout without its data (no_alloc) on the CPU alone and creates a small
// context, which builds the worst-case graph. Allocates nothing large.
Error dryRun(const std::string &path)
{
    LogCapture capture;
    llama_model_params mp = llama_model_default_params();
    mp.no_alloc = true;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;
    mp.n_gpu_layers = 0;
    ggml_backend_dev_t noDevices[] = {nullptr}; // the CPU only: no GPU is initialised here
    mp.devices = noDevices;
    llama_model_ptr model(llama_model_load_from_file(path.c_str(), mp));
    if (!model)
        return Error{ErrorCode::LoadFailed, "llama.cpp could not read the model's layout" +
                                                (capture.lastError().empty() ? std::string() : ": " + capture.lastError())};
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512;
    cp.n_batch = 512;
    cp.n_ubatch = 512;
    cp.n_threads = 1;
    cp.n_threads_batch = 1;
    llama_context_ptr ctx(llama_init_from_model(model.get(), cp));
    if (!ctx)
        return Error{ErrorCode::LoadFailed, "llama.cpp could not build the model's compute graph" +
                                                (capture.lastError().empty() ? std::string() : ": " + capture.lastError())};
    return {};
}

} // namespace

std::string flaggedVerdict(const std::string &flag, const std::string &path, const Error &verdict)
{
    std::string why = errorMessage(verdict);
    for (const std::string &named : {path, fs::path(path).filename().string()})
        if (why.rfind(named + ": ", 0) == 0) {
            why.erase(0, named.size() + 2);
            break;
        }
    return flag + " " + path + ": " + why;
}

Error checkFileInProcess(const std::string &path)
{
    return internal::guarded(ErrorCode::LoadFailed, [&]() -> Error {
        stage("metadata");
        // A vision projector: llama.cpp's dry run of it (what the plan runs in-process) is the check.
        if (auto projector = inspectProjector(path); projector) {
            stage("projector");
            if (auto bytes = projectorMemory(path, false); !bytes)
                return bytes.error();
            stage("done");
            return Error{};
        }
        auto info = inspectModel(path);
        if (!info)
            return info.error();
        internal::initBackends(false); // the CPU only: a vocabulary (and a dry run on the CPU)
        LogCapture capture;
        stage("vocabulary");
        llama_model_params mp = llama_model_default_params();
        mp.vocab_only = true;
        llama_model_ptr model(llama_model_load_from_file(path.c_str(), mp));
        if (!model)
            return Error{ErrorCode::LoadFailed, capture.lastError().empty() ? "llama.cpp could not read the vocabulary"
                                                                            : capture.lastError()};
        stage("tokenize");
        const llama_vocab *vocab = llama_model_get_vocab(model.get());
        for (const char *text : {"Hello, world! How are you?", "你好，世界。Grüße 🚀", "def f(x):\n    return x * 2\n"}) {
            const auto tokens = common_tokenize(vocab, text, true, true);
            std::string back;
            for (llama_token t : tokens)
                back += common_token_to_piece(vocab, t, false);
        }
        stage("template");
        auto templates = ChatTemplates::create(model.get());
        if (!templates)
            return templates.error();
        const std::vector<std::vector<ChatMessage>> conversations = {
            {{"user", "Hello!", {}}},
            {{"system", "You are a helpful assistant.", {}}, {"user", "What is 2+2?", {}},
             {"assistant", "4", "Adding two and two."}, {"user", "And 3+3?", {}}},
        };
        for (const auto &c : conversations) {
            for (bool thinking : {true, false}) {
                GenerationOptions o;
                o.enableThinking = thinking;
                if (auto p = templates->apply(c, o, vocab); !p)
                    return templateFailure(p.error());
            }
        }
        model.reset();
        // llama.cpp's own dry run, as the exact planner runs it: every hyperparameter it reads,
        // every tensor placed (no data), and the worst-case compute graph built. Its asserts on
        // what only the file controls (a rope type, a head layout, a weight's type) end here.
        stage("layout");
        if (Error e = dryRun(path))
            return e;
        stage("done");
        return {};
    });
}

int serveChatTemplates(const std::string &modelPath)
{
    return internal::TemplateSandbox::serve(modelPath);
}

Result<FileCheckVerdict> checkFileIsolated(const std::string &path, const std::string &helper,
                                           const FileCheckLimits &limits, const std::string &cacheFile,
                                           const std::atomic<bool> *cancel)
{
    const std::string key = cacheKey(path);
    if (!key.empty() && !cacheFile.empty() && cached(cacheFile, key))
        return FileCheckVerdict{true, 0};
    const auto start = Clock::now();
    internal::HelperProcess child;
    const internal::HelperProcess::Limits rl{limits.memoryBytes, limits.seconds + 1};
    if (!child.start({helper, "check-file", path}, rl, false))
        return Error{ErrorCode::LoadFailed, "the file check could not start (" + std::string(std::strerror(errno)) + ")"};
    std::string out, err;
    const bool finished = collect(child, out, err, start + std::chrono::seconds(limits.seconds), cancel);
    // At the memory limit glibc's malloc can keep trying new arenas instead of failing: a helper
    // that stopped at the deadline with its heap full ran out of memory, not of time.
    const bool heapFull = !finished && internal::processHeapBytes(child.pid()) >= limits.memoryBytes / 10 * 9;
    const int status = finished ? child.wait() : child.kill();
    const std::string file = fs::path(path).filename().string();
    if (!finished) {
        if (cancel && cancel->load())
            return Error{ErrorCode::Cancelled, "loading was cancelled"};
        if (heapFull)
            return Error{ErrorCode::FileCheckFailed, file + ": " + lastStage(err) + " needed more than " +
                                                    formatBytes(limits.memoryBytes) + " of memory"};
        return Error{ErrorCode::FileCheckFailed,
                     file + ": " + lastStage(err) + " did not finish in " + std::to_string(limits.seconds) + " s"};
    }
    if (Error e = verdictFromChild(status, out, err, file, limits))
        return e;
    if (!key.empty() && !cacheFile.empty())
        remember(cacheFile, key);
    return FileCheckVerdict{false, std::chrono::duration<double, std::milli>(Clock::now() - start).count()};
}

} // namespace shoehorn
