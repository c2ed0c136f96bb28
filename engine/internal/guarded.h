#pragma once

// Engine-internal: nothing thrown inside llama.cpp or the standard library leaves a public engine
// function. The body runs inside; an exception becomes an Error of the given code (bad_alloc:
// OutOfMemory), so the app and the CLI only ever see values.

#include "error.h"

#include <exception>
#include <new>
#include <string>

namespace shoehorn::internal {

template <typename F>
auto guarded(ErrorCode code, F &&body) -> decltype(body())
{
    try {
        return body();
    } catch (const std::bad_alloc &) {
        return Error{ErrorCode::OutOfMemory, "out of memory"};
    } catch (const std::exception &e) {
        return Error{code, std::string("unexpected failure: ") + e.what()};
    } catch (...) {
        return Error{code, "unexpected failure"};
    }
}

} // namespace shoehorn::internal
