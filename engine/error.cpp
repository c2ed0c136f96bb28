#include "error.h"

namespace shoehorn {

const char *errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::None: return "none";
    case ErrorCode::FileNotFound: return "file-not-found";
    case ErrorCode::FileUnreadable: return "file-unreadable";
    case ErrorCode::NotGguf: return "not-gguf";
    case ErrorCode::UnsupportedVersion: return "unsupported-version";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::Corrupt: return "corrupt";
    case ErrorCode::SplitMissing: return "split-missing";
    case ErrorCode::InvalidArgument: return "invalid-argument";
    case ErrorCode::LoadFailed: return "load-failed";
    case ErrorCode::OutOfMemory: return "out-of-memory";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::ContextFailed: return "context-failed";
    case ErrorCode::TemplateFailed: return "template-failed";
    case ErrorCode::TokenizeFailed: return "tokenize-failed";
    case ErrorCode::DecodeFailed: return "decode-failed";
    case ErrorCode::NoModel: return "no-model";
    case ErrorCode::PromptTooLong: return "prompt-too-long";
    }
    return "unknown";
}

} // namespace shoehorn
