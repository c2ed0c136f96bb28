#include "templatesandbox.h"
#include "backends.h"

#include "logcapture.h"

#include <llama-cpp.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace shoehorn::internal {

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

// One frame: a 4-byte little-endian length, then that many bytes of CBOR. CBOR, not JSON text:
// a chat can hold bytes that are not UTF-8 (a model's broken reply), and they must come back as
// they went.
constexpr uint32_t kMaxFrame = 512u << 20;

std::string frame(const json &j)
{
    const std::vector<uint8_t> body = json::to_cbor(j);
    std::string out(4, '\0');
    const uint32_t n = static_cast<uint32_t>(body.size());
    for (int i = 0; i < 4; ++i)
        out[size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    out.append(body.begin(), body.end());
    return out;
}

// A whole frame from the front of `buf` (removed from it), if one is there.
std::optional<json> takeFrame(std::string &buf)
{
    if (buf.size() < 4)
        return std::nullopt;
    uint32_t n = 0;
    for (int i = 0; i < 4; ++i)
        n |= uint32_t(static_cast<unsigned char>(buf[size_t(i)])) << (8 * i);
    if (n > kMaxFrame)
        return json{{"ok", false}, {"detail", "the template helper sent a frame of " + std::to_string(n) + " bytes"}};
    if (buf.size() < 4 + size_t(n))
        return std::nullopt;
    json j = json::from_cbor(buf.begin() + 4, buf.begin() + 4 + n, true, false);
    buf.erase(0, 4 + size_t(n));
    if (j.is_discarded())
        return json{{"ok", false}, {"detail", "the template helper sent something that is not CBOR"}};
    return j;
}

json requestJson(const std::vector<ChatMessage> &history, const GenerationOptions &options)
{
    json messages = json::array();
    for (const ChatMessage &m : history)
        messages.push_back({{"role", m.role}, {"content", m.content}, {"reasoning", m.reasoning}});
    return {{"messages", messages},
            {"thinking", options.enableThinking},
            {"kwargs", options.templateKwargs},
            {"stop", options.stop}};
}

json promptJson(const ChatPrompt &p)
{
    return {{"ok", true},           {"text", p.text},   {"startTag", p.startTag},  {"endTags", p.endTags},
            {"startInReasoning", p.startInReasoning}, {"stops", p.stops}, {"visible", p.visibleText}};
}

ChatPrompt promptFrom(const json &j)
{
    ChatPrompt p;
    p.text = j.at("text").get<std::string>();
    p.startTag = j.at("startTag").get<std::string>();
    p.endTags = j.at("endTags").get<std::vector<std::string>>();
    p.startInReasoning = j.at("startInReasoning").get<bool>();
    p.stops = j.at("stops").get<std::vector<std::string>>();
    p.visibleText = j.at("visible").get<std::vector<std::string>>();
    return p;
}

bool readExactly(int fd, char *to, size_t n)
{
    while (n > 0) {
        const ssize_t r = ::read(fd, to, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        to += r;
        n -= size_t(r);
    }
    return true;
}

bool writeAll(int fd, const std::string &s)
{
    size_t done = 0;
    while (done < s.size()) {
        const ssize_t w = ::write(fd, s.data() + done, s.size() - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += size_t(w);
    }
    return true;
}

// Writes to the helper's stdin without a SIGPIPE when it has died: the signal is blocked on this
// thread for the write and a pending one is taken back.
struct NoSigPipe {
    sigset_t set{}, old{};
    bool pendingBefore = false;
    NoSigPipe()
    {
        sigemptyset(&set);
        sigaddset(&set, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        pendingBefore = sigismember(&pending, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &set, &old);
    }
    ~NoSigPipe()
    {
        if (!pendingBefore) {
            const timespec zero{0, 0};
            while (sigtimedwait(&set, nullptr, &zero) > 0) {
            }
        }
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
};

std::string abortLine(const std::string &err)
{
    for (const char *key : {"GGML_ASSERT", "terminate called", "what():"}) {
        const size_t at = err.rfind(key);
        if (at == std::string::npos)
            continue;
        const size_t start = err.rfind('\n', at);
        const size_t end = err.find('\n', at);
        const size_t from = start == std::string::npos ? 0 : start + 1;
        return err.substr(from, std::min<size_t>(300, (end == std::string::npos ? err.size() : end) - from));
    }
    return {};
}

} // namespace

TemplateSandbox::TemplateSandbox(std::string helper, std::string modelPath, int seconds, uint64_t heapBytes)
    : m_helper(std::move(helper)), m_model(std::move(modelPath)), m_seconds(seconds), m_heapBytes(heapBytes)
{
}

void TemplateSandbox::warmUp()
{
    if (!m_process.running())
        start(); // a failure to start is reported by the first render, which tries again
}

Error TemplateSandbox::start()
{
    m_out.clear();
    m_err.clear();
    m_ready = false;
    if (!m_process.start({m_helper, "render-template", m_model}, {m_heapBytes, 0}, true))
        return Error{ErrorCode::TemplateFailed,
                     "the chat template's helper process could not start (" + std::string(std::strerror(errno)) + ")"};
    ::fcntl(m_process.stdinFd(), F_SETFL, ::fcntl(m_process.stdinFd(), F_GETFL) | O_NONBLOCK);
    return {};
}

// Why the helper stopped answering, in the words of the first-open check.
Error TemplateSandbox::failure(const char *during, bool timedOut)
{
    const bool heapFull = m_process.running() && processHeapBytes(m_process.pid()) >= m_heapBytes / 10 * 9;
    const int status = m_process.kill();
    m_ready = false;
    const std::string what = during;
    if (heapFull || m_err.find("bad_alloc") != std::string::npos)
        return Error{ErrorCode::TemplateFailed, what + " needed more than " + formatBytes(m_heapBytes) + " of memory"};
    if (timedOut)
        return Error{ErrorCode::TemplateFailed, what + " did not finish in " + std::to_string(m_seconds) + " s"};
    if (const int sig = deadlySignal(status, m_err); sig == SIGSEGV || sig == SIGBUS)
        return Error{ErrorCode::TemplateFailed, "llama.cpp crashed while " + what + " (the template nests too deeply or calls itself)"};
    const std::string line = abortLine(m_err);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return Error{ErrorCode::TemplateFailed, "the chat template's helper (shoehorn-cli) could not run"};
    return Error{ErrorCode::TemplateFailed, "the chat template's helper stopped while " + what +
                                                (line.empty() ? std::string() : ": " + line)};
}

Result<ChatPrompt> TemplateSandbox::render(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                                           const std::atomic<bool> *cancel)
{
    if (!m_process.running())
        if (Error e = start())
            return e;
    const std::string request = frame(requestJson(history, options));
    size_t written = 0;
    // Loading the vocabulary before the first render is not the template's time.
    auto deadline = Clock::now() + std::chrono::seconds(m_ready ? m_seconds : m_seconds + 30);
    for (;;) {
        if (cancel && cancel->load()) {
            m_process.kill();
            m_ready = false;
            return Error{ErrorCode::Cancelled, "stopped while rendering the chat template"};
        }
        if (Clock::now() >= deadline)
            return failure(m_ready ? "rendering the chat template" : "loading the vocabulary for the chat template", true);
        if (written < request.size() && m_process.stdinFd() >= 0) {
            NoSigPipe guard;
            const ssize_t w = ::write(m_process.stdinFd(), request.data() + written, request.size() - written);
            if (w > 0)
                written += size_t(w);
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                return failure("rendering the chat template", false);
        }
        const bool open = m_process.pump(m_out, m_err, std::chrono::milliseconds(written < request.size() ? 5 : 50));
        while (auto reply = takeFrame(m_out)) {
            if (!reply->value("ok", false)) {
                const std::string detail = reply->value("detail", std::string("the chat template failed"));
                if (!m_ready) { // it could not load the templates: no use starting it again
                    m_process.kill();
                    return Error{ErrorCode::TemplateFailed, detail};
                }
                if (detail.find("bad_alloc") != std::string::npos) // llama.cpp's jinja caught it: the heap limit
                    return Error{ErrorCode::TemplateFailed, "rendering the chat template needed more than " +
                                                                formatBytes(m_heapBytes) + " of memory"};
                return Error{errorCodeFromName(reply->value("code", std::string())).value_or(ErrorCode::TemplateFailed),
                             detail};
            }
            if (reply->value("ready", false)) {
                m_ready = true;
                deadline = Clock::now() + std::chrono::seconds(m_seconds);
                continue;
            }
            try {
                return promptFrom(*reply);
            } catch (const std::exception &e) {
                return Error{ErrorCode::TemplateFailed, std::string("the chat template's helper answered badly: ") + e.what()};
            }
        }
        if (!open)
            return failure(m_ready ? "rendering the chat template" : "loading the vocabulary for the chat template", false);
    }
}

int TemplateSandbox::serve(const std::string &modelPath)
{
    const auto reply = [](const json &j) { return writeAll(1, frame(j)); };
    internal::initBackends(false); // the CPU only: a vocabulary (and a dry run on the CPU)
    LogCapture capture;
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only = true;
    llama_model_ptr model(llama_model_load_from_file(modelPath.c_str(), mp));
    if (!model) {
        reply({{"ok", false}, {"detail", capture.lastError().empty() ? "llama.cpp could not read the vocabulary" : capture.lastError()}});
        return 1;
    }
    auto templates = ChatTemplates::create(model.get());
    if (!templates) {
        reply({{"ok", false}, {"detail", templates.error().detail}});
        return 1;
    }
    if (!reply({{"ok", true}, {"ready", true}}))
        return 1;
    for (;;) {
        char head[4];
        if (!readExactly(0, head, 4))
            return 0; // the session is gone
        uint32_t n = 0;
        for (int i = 0; i < 4; ++i)
            n |= uint32_t(static_cast<unsigned char>(head[i])) << (8 * i);
        if (n > kMaxFrame)
            return 1;
        std::string body(n, '\0');
        if (!readExactly(0, body.data(), n))
            return 0;
        json out;
        try {
            const json req = json::from_cbor(body);
            std::vector<ChatMessage> history;
            for (const json &m : req.at("messages"))
                history.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>(),
                                   m.at("reasoning").get<std::string>()});
            GenerationOptions o;
            o.enableThinking = req.at("thinking").get<bool>();
            o.templateKwargs = req.at("kwargs").get<std::map<std::string, std::string>>();
            o.stop = req.at("stop").get<std::vector<std::string>>();
            std::fprintf(stderr, "check: template\n");
            auto p = templates->render(history, o);
            out = p ? promptJson(*p)
                    : json{{"ok", false}, {"code", errorCodeName(p.error().code)}, {"detail", p.error().detail}};
        } catch (const std::bad_alloc &) {
            throw; // the parent names the memory limit
        } catch (const std::exception &e) {
            out = {{"ok", false}, {"detail", std::string("a bad request to the template helper: ") + e.what()}};
        }
        if (!reply(out))
            return 1;
    }
}

} // namespace shoehorn::internal
