#pragma once

#include <mutex>
#include <string>

namespace shoehorn {

// llama.cpp and ggml report failures only through their log callback. Shoehorn installs one
// process-wide callback; a LogCapture on the stack collects what the calling thread logs at
// warning level and above, so a failed call can return llama.cpp's own reason.
class LogCapture
{
public:
    LogCapture();
    // `shared`: read from other threads while this one logs (a thread that runs for long, such
    // as the server loop's): appends and reads take a lock, and the text keeps its last 64 KiB.
    explicit LogCapture(bool shared);
    ~LogCapture();
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;

    // The error lines logged since construction (warnings if there were no errors), trimmed.
    std::string lastError() const;
    std::string all() const;
    // A shared capture: forgets what it has collected (before the call whose errors matter).
    void clear();

    // Installs the process-wide callback. Idempotent. SHOEHORN_LLAMA_LOG=1 echoes llama's log.
    static void installLogger();
    // Installs it again, after code that points llama's or libmtmd's log elsewhere.
    static void reinstallLogger();

private:
    friend struct LogSink;
    void append(int level, const char *text);

    std::string m_text;
    std::string m_errors;
    std::string m_warnings;
    int m_lastLevel = 0;
    LogCapture *m_previous = nullptr;
    bool m_shared = false;
    mutable std::mutex m_mutex;
};

} // namespace shoehorn
