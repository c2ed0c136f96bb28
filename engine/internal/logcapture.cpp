#include "logcapture.h"

#include <ggml.h>
#include <llama.h>
#include <mtmd-helper.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace shoehorn {

namespace {
thread_local LogCapture *t_capture = nullptr;
bool g_echo = false;

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    return s;
}
} // namespace

struct LogSink {
    static void callback(ggml_log_level level, const char *text, void *)
    {
        if (!text)
            return;
        if (t_capture)
            t_capture->append(static_cast<int>(level), text);
        if (g_echo || level == GGML_LOG_LEVEL_ERROR) {
            if (g_echo || !t_capture) // captured errors are returned to the caller instead
                std::fputs(text, stderr);
        }
    }
};

LogCapture::LogCapture() : m_previous(t_capture)
{
    installLogger();
    t_capture = this;
}

LogCapture::LogCapture(bool shared) : LogCapture()
{
    m_shared = shared;
}

LogCapture::~LogCapture()
{
    t_capture = m_previous;
}

void LogCapture::append(int level, const char *text)
{
    std::unique_lock lock(m_mutex, std::defer_lock);
    if (m_shared)
        lock.lock();
    // CONT continues the previous message at its level.
    if (level == GGML_LOG_LEVEL_CONT)
        level = m_lastLevel;
    m_lastLevel = level;
    if (m_text.size() < 64 * 1024)
        m_text += text;
    else if (m_shared) // keep the newest
        m_text = m_text.substr(m_text.size() - 32 * 1024) + text;
    if (level == GGML_LOG_LEVEL_ERROR && (m_errors.size() < 8 * 1024 || m_shared)) {
        m_errors += text;
        if (m_errors.size() > 8 * 1024)
            m_errors.erase(0, m_errors.size() - 8 * 1024);
    } else if (level == GGML_LOG_LEVEL_WARN && (m_warnings.size() < 8 * 1024 || m_shared)) {
        m_warnings += text;
        if (m_warnings.size() > 8 * 1024)
            m_warnings.erase(0, m_warnings.size() - 8 * 1024);
    }
}

std::string LogCapture::lastError() const
{
    std::unique_lock lock(m_mutex, std::defer_lock);
    if (m_shared)
        lock.lock();
    return trimmed(m_errors.empty() ? m_warnings : m_errors);
}

std::string LogCapture::all() const
{
    std::unique_lock lock(m_mutex, std::defer_lock);
    if (m_shared)
        lock.lock();
    return m_text;
}

void LogCapture::clear()
{
    std::unique_lock lock(m_mutex, std::defer_lock);
    if (m_shared)
        lock.lock();
    m_text.clear();
    m_errors.clear();
    m_warnings.clear();
}

void LogCapture::reinstallLogger()
{
    installLogger();
    llama_log_set(&LogSink::callback, nullptr);
    mtmd_helper_log_set(&LogSink::callback, nullptr);
}

void LogCapture::installLogger()
{
    static std::once_flag once;
    std::call_once(once, [] {
        const char *env = std::getenv("SHOEHORN_LLAMA_LOG");
        g_echo = env && *env && std::string(env) != "0";
        llama_log_set(&LogSink::callback, nullptr);
        mtmd_helper_log_set(&LogSink::callback, nullptr); // libmtmd and its helpers log through their own hook
    });
}

} // namespace shoehorn
