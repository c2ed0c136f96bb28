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
    case ErrorCode::AddressInUse: return "address-in-use";
    case ErrorCode::ServeFailed: return "serve-failed";
    case ErrorCode::ProjectorMismatch: return "projector-mismatch";
    case ErrorCode::ProjectorFailed: return "projector-failed";
    case ErrorCode::ImageInvalid: return "image-invalid";
    case ErrorCode::NoProjector: return "no-projector";
    case ErrorCode::FileCheckFailed: return "file-check-failed";
    case ErrorCode::RemoteFailed: return "remote-failed";
    case ErrorCode::FileUnwritable: return "file-unwritable";
    case ErrorCode::Busy: return "busy";
    }
    return "unknown";
}

std::optional<ErrorCode> errorCodeFromName(const std::string &name)
{
    for (int c = 0; c <= int(ErrorCode::Busy); ++c)
        if (name == errorCodeName(ErrorCode(c)))
            return ErrorCode(c);
    return std::nullopt;
}

const char *errorCodeSentence(ErrorCode code)
{
    switch (code) {
    case ErrorCode::None: return "No error.";
    case ErrorCode::FileNotFound: return "The file does not exist.";
    case ErrorCode::FileUnreadable: return "The file cannot be read.";
    case ErrorCode::NotGguf: return "The file is not a GGUF model.";
    case ErrorCode::UnsupportedVersion: return "This GGUF version is not supported.";
    case ErrorCode::Truncated: return "The file is incomplete: it ends before its tensor data does.";
    case ErrorCode::Corrupt: return "The file is damaged.";
    case ErrorCode::SplitMissing: return "A part of the split model is missing.";
    case ErrorCode::InvalidArgument: return "A setting has a value that cannot be used.";
    case ErrorCode::LoadFailed: return "llama.cpp could not load the model.";
    case ErrorCode::OutOfMemory: return "There is not enough memory for these settings.";
    case ErrorCode::Cancelled: return "The operation was cancelled.";
    case ErrorCode::ContextFailed: return "llama.cpp could not create the context.";
    case ErrorCode::TemplateFailed: return "The chat template could not be applied.";
    case ErrorCode::TokenizeFailed: return "The text could not be tokenized.";
    case ErrorCode::DecodeFailed: return "llama.cpp could not evaluate the tokens.";
    case ErrorCode::NoModel: return "No model is loaded.";
    case ErrorCode::PromptTooLong: return "The prompt does not fit in the context.";
    case ErrorCode::AddressInUse: return "The address or port is in use or cannot be bound.";
    case ErrorCode::ServeFailed: return "The API server could not start.";
    case ErrorCode::ProjectorMismatch: return "The vision projector (mmproj) does not belong to this model.";
    case ErrorCode::ProjectorFailed: return "llama.cpp could not load or run the vision projector (mmproj).";
    case ErrorCode::ImageInvalid: return "The image cannot be used.";
    case ErrorCode::NoProjector: return "This model cannot see images: no vision projector (mmproj) is paired with it.";
    case ErrorCode::FileCheckFailed: return "The file failed the safety check before loading: it would crash or hang Shoehorn.";
    case ErrorCode::RemoteFailed: return "A remote machine (RPC worker) cannot be reached or used.";
    case ErrorCode::FileUnwritable: return "The file cannot be written.";
    case ErrorCode::Busy: return "The model is busy loading, answering or being tuned.";
    }
    return "An unknown error occurred.";
}

std::string errorMessage(const Error &error)
{
    if (!error.detail.empty())
        return error.detail;
    return std::string(errorCodeSentence(error.code)) + " (No further detail was reported.)";
}

} // namespace shoehorn
