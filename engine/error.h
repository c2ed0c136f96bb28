#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace shoehorn {

// Engine failures are values, never exceptions or aborts; the UI turns the code into
// translated text and shows `detail` (usually llama.cpp's own words) underneath.
enum class ErrorCode {
    None = 0,
    FileNotFound,
    FileUnreadable,
    NotGguf,
    UnsupportedVersion,
    Truncated,
    Corrupt,
    SplitMissing,
    InvalidArgument,
    LoadFailed,
    OutOfMemory,
    Cancelled,
    ContextFailed,
    TemplateFailed,
    TokenizeFailed,
    DecodeFailed,
    NoModel,
    PromptTooLong,
    AddressInUse,
    ServeFailed,
    ProjectorMismatch, // the mmproj file is for another model
    ProjectorFailed,   // libmtmd could not load or run the projector
    ImageInvalid,      // not an image we can read, or too large
    NoProjector,       // an image was given to a model without a projector
    FileCheckFailed,   // the isolated first-open check crashed, hung or ran out of memory
    RemoteFailed,      // an RPC worker (another machine's devices) cannot be reached or used
    FileUnwritable,    // a file could not be written (a full disk, a folder that is not ours)
    Busy,              // the model is loading, answering or being tuned: it cannot start this now
};

struct Error {
    ErrorCode code = ErrorCode::None;
    std::string detail;

    explicit operator bool() const { return code != ErrorCode::None; }
};

const char *errorCodeName(ErrorCode code);
// The code errorCodeName() gives this name; nullopt for a name it never gives.
std::optional<ErrorCode> errorCodeFromName(const std::string &name);
// One English sentence per code, for logs and shoehorn-cli (the GUI translates its own).
const char *errorCodeSentence(ErrorCode code);
// The model file itself is what is wrong: missing, unreadable, not GGUF, of an unknown version,
// cut short, corrupt, or a split part missing. Inline: part of the code's vocabulary, which ui/
// words (ErrorText) without calling into the engine.
constexpr bool isFileError(ErrorCode code)
{
    switch (code) {
    case ErrorCode::FileNotFound:
    case ErrorCode::FileUnreadable:
    case ErrorCode::NotGguf:
    case ErrorCode::UnsupportedVersion:
    case ErrorCode::Truncated:
    case ErrorCode::Corrupt:
    case ErrorCode::SplitMissing:
        return true;
    default:
        return false;
    }
}
// The detail, or the code's sentence when a failure left none: never empty.
std::string errorMessage(const Error &error);

// A value or an Error. C++20 has no std::expected; this is the small part of it we use.
template <typename T>
class [[nodiscard]] Result
{
public:
    Result(T value) : m_v(std::move(value)) {}
    Result(Error error) : m_v(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_v); }
    explicit operator bool() const { return ok(); }
    T &value() { return std::get<T>(m_v); }
    const T &value() const { return std::get<T>(m_v); }
    T &operator*() { return value(); }
    const T &operator*() const { return value(); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    const Error &error() const { return std::get<Error>(m_v); }

private:
    std::variant<T, Error> m_v;
};

// Success, or an Error: for a call that gives nothing back but can fail.
template <>
class [[nodiscard]] Result<void>
{
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)) {}

    bool ok() const { return !m_error; }
    explicit operator bool() const { return ok(); }
    const Error &error() const { return m_error; }

private:
    Error m_error;
};

} // namespace shoehorn
