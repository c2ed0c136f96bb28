#pragma once

// The chat settings the tests that answer with a tiny fixture share: CPU only, a 1024-token
// context, 2 threads (CTest runs those tests alone on the 2 cores: PROCESSORS 2 in
// tests/CMakeLists.txt), a few tokens per answer and a fixed seed, so an answer is quick and the
// same every run.

#include "loadedmodel.h"

#include <cstdint>

inline void configureSmallChat(LoadedModel &c, int maxTokens, uint32_t seed)
{
    auto ls = c.loadSettings();
    ls.gpuLayers = 0;
    c.setLoadSettings(ls);
    auto cs = c.contextSettings();
    cs.contextSize = 1024;
    cs.threads = 2;
    c.setContextSettings(cs);
    auto o = c.generationOptions();
    o.maxTokens = maxTokens;
    o.sampling.seed = seed;
    c.setGenerationOptions(o);
}
