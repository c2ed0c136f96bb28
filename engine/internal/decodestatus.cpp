#include "decodestatus.h"

#include "model.h"
#include "rpcstate.h"

#include <string>

namespace shoehorn {

namespace {

const char *meaning(int32_t rc)
{
    if (rc == 1)
        return "no KV cache slot for the batch: the context is full";
    if (rc == 2)
        return "aborted";
    if (rc == -1)
        return "invalid input batch";
    if (rc < -1)
        return "fatal error";
    return "undocumented result";
}

} // namespace

DecodeStatus decodeStatus(int32_t rc)
{
    switch (rc) {
    case 0: return DecodeStatus::Ok;
    case 1: return DecodeStatus::NoSlot;
    case 2: return DecodeStatus::Aborted;
    default: return DecodeStatus::Failed;
    }
}

Error decodeError(int32_t rc, const LogCapture &capture)
{
    if (auto remote = internal::remoteFailure())
        return *remote;
    std::string detail = "llama_decode returned " + std::to_string(rc) + " (" + meaning(rc) + ")";
    const std::string why = capture.lastError();
    detail += why.empty() ? std::string("; llama.cpp logged no reason") : ": " + why;
    return Error{looksLikeOutOfMemory(capture.all()) ? ErrorCode::OutOfMemory : ErrorCode::DecodeFailed, detail};
}

} // namespace shoehorn
