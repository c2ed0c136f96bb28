#pragma once

#include <QtTest>

// A sanitized build (SHOEHORN_SANITIZE) runs its helper processes without a heap limit: ASan's
// shadow memory counts against RLIMIT_DATA (engine/internal/helperprocess.cpp). What that limit
// does cannot be seen there; the rows that test it are skipped, saying so.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// How much longer a time limit of a test may be there: instrumented code runs two to three
// times slower (a limit that is the behaviour under test stays as it is).
inline constexpr int kSlowdown = kSanitizedBuild ? 3 : 1;

#define SKIP_IF_HEAP_LIMIT_IS_OFF()                                                                               \
    do {                                                                                                           \
        if (kSanitizedBuild)                                                                                       \
            QSKIP("a sanitized build runs its helpers without a heap limit (ASan's shadow memory counts against it)"); \
    } while (false)
