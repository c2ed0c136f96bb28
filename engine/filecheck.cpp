#include "filecheck.h"

#include "guarded.h"

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

// The child's heap (VmData, what RLIMIT_DATA limits), from /proc; 0 if unknown.
uint64_t heapBytes(pid_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("VmData:", 0) == 0)
            return std::stoull(line.substr(7)) * 1024; // "VmData:   524288 kB"
    return 0;
}

struct Child {
    pid_t pid = -1;
    int out = -1;
    int err = -1;
};

// fork + exec with the limits set in the child (only async-signal-safe calls between them).
Child spawn(const std::string &helper, const std::string &path, const FileCheckLimits &limits)
{
    int outPipe[2], errPipe[2];
    if (::pipe2(outPipe, O_CLOEXEC) != 0)
        return {};
    if (::pipe2(errPipe, O_CLOEXEC) != 0) {
        ::close(outPipe[0]);
        ::close(outPipe[1]);
        return {};
    }
    std::string arg0 = helper, arg1 = "check-file", arg2 = path;
    char *argv[] = {arg0.data(), arg1.data(), arg2.data(), nullptr};
    const rlimit data{limits.memoryBytes, limits.memoryBytes};
    const rlimit cpu{rlim_t(limits.seconds + 1), rlim_t(limits.seconds + 2)};
    const rlimit core{0, 0};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(outPipe[1], 1);
        ::dup2(errPipe[1], 2);
        ::setrlimit(RLIMIT_DATA, &data);
        ::setrlimit(RLIMIT_CPU, &cpu);
        ::setrlimit(RLIMIT_CORE, &core); // a crash here is expected: no core file
        ::execv(argv[0], argv);
        ::_exit(127);
    }
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (pid < 0) {
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        return {};
    }
    return {pid, outPipe[0], errPipe[0]};
}

// Reads both pipes until the child closes them, the deadline passes or `cancel` is set.
// Returns false when it stopped early (the caller kills the child).
bool collect(const Child &c, std::string &out, std::string &err, Clock::time_point deadline,
             const std::atomic<bool> *cancel)
{
    bool outOpen = true, errOpen = true;
    char buf[4096];
    while (outOpen || errOpen) {
        if (Clock::now() >= deadline || (cancel && cancel->load()))
            return false;
        pollfd fds[2] = {{c.out, POLLIN, 0}, {c.err, POLLIN, 0}};
        if (::poll(fds, 2, 50) < 0 && errno != EINTR)
            return false;
        for (int i = 0; i < 2; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            bool &open = i == 0 ? outOpen : errOpen;
            if (n <= 0) {
                open = false;
                fds[i].fd = -1;
                continue;
            }
            std::string &to = i == 0 ? out : err;
            if (to.size() < (1u << 20))
                to.append(buf, size_t(n));
        }
    }
    return true;
}

Error verdictFromChild(int status, const std::string &out, const std::string &err, const std::string &file,
                       const FileCheckLimits &limits)
{
    const std::string during = lastStage(err);
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
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
    ErrorCode code = ErrorCode::LoadFailed;
    const std::string name = j.value("code", std::string());
    for (int c = 0; c < 100; ++c)
        if (name == errorCodeName(ErrorCode(c)))
            code = ErrorCode(c);
    std::string detail = j.value("detail", std::string("the file check failed"));
    if (detail.rfind(file, 0) != 0)
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

} // namespace

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
        llama_backend_init();
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
        stage("done");
        return {};
    });
}

Result<FileCheckVerdict> checkFileIsolated(const std::string &path, const std::string &helper,
                                           const FileCheckLimits &limits, const std::string &cacheFile,
                                           const std::atomic<bool> *cancel)
{
    const std::string key = cacheKey(path);
    if (!key.empty() && !cacheFile.empty() && cached(cacheFile, key))
        return FileCheckVerdict{true, 0};
    const auto start = Clock::now();
    Child child = spawn(helper, path, limits);
    if (child.pid < 0)
        return Error{ErrorCode::LoadFailed, "the file check could not start (" + std::string(std::strerror(errno)) + ")"};
    std::string out, err;
    const bool finished = collect(child, out, err, start + std::chrono::seconds(limits.seconds), cancel);
    // At the memory limit glibc's malloc can keep trying new arenas instead of failing: a helper
    // that stopped at the deadline with its heap full ran out of memory, not of time.
    const bool heapFull = !finished && heapBytes(child.pid) >= limits.memoryBytes / 10 * 9;
    if (!finished)
        ::kill(child.pid, SIGKILL);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(child.out);
    ::close(child.err);
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
