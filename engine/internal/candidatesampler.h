#pragma once

#include "settings.h"

#include <llama-cpp.h>

#include <vector>

namespace shoehorn {

// Samples the next token with a llama.cpp sampler chain built from SamplingSettings, without
// handing the chain the whole vocabulary when it would cut it to top-k anyway.
//
// llama_sampler_sample() copies every logit (150k+ for Qwen) into a candidate array and
// partially sorts it, each token: the host-side cost that makes wrappers slower than
// llama.cpp. When top-k is on (or sampling is greedy), one pass over the logits keeps the k
// best plus room for every token a penalty could push down (penalties only lower logits
// here), and the chain runs on those. The chain then picks exactly the token it would pick
// from the full vocabulary. Otherwise (no top-k, boosting penalties, a penalty window of the
// whole context) the full array is used, as llama.cpp does.
class CandidateSampler
{
public:
    CandidateSampler(const SamplingSettings &settings, int vocabSize);
    llama_token sample(const float *logits);
    llama_token sample(llama_context *ctx) { return sample(llama_get_logits_ith(ctx, -1)); }
    // How many candidates the chain sees per token (the vocabulary size without a shortcut).
    int candidateCount() const { return m_keep > 0 ? m_keep : m_vocab; }
    // Test seam: always give the chain the whole vocabulary (llama.cpp's own path).
    void setFullVocabulary(bool full) { m_forceFull = full; }

private:
    llama_sampler_ptr m_chain;
    int m_vocab;
    int m_keep = 0; // candidates kept by the shortcut; 0 = the whole vocabulary
    bool m_forceFull = false;
    std::vector<llama_token_data> m_cur;
};

} // namespace shoehorn
