#include "candidatesampler.h"

#include <algorithm>
#include <cstdint>

namespace shoehorn {

CandidateSampler::CandidateSampler(const SamplingSettings &s, int vocabSize)
    : m_chain(llama_sampler_chain_init(llama_sampler_chain_default_params())), m_vocab(vocabSize)
{
    // The chain in llama.cpp's usual order.
    const bool penalties = s.repeatPenalty != 1.0f || s.presencePenalty != 0.0f || s.frequencyPenalty != 0.0f;
    if (penalties)
        llama_sampler_chain_add(m_chain.get(), llama_sampler_init_penalties(vocabSize, s.repeatLastN, s.repeatPenalty,
                                                                           s.frequencyPenalty, s.presencePenalty));
    const bool greedy = s.temperature <= 0.0f;
    if (greedy) {
        llama_sampler_chain_add(m_chain.get(), llama_sampler_init_greedy());
    } else {
        if (s.topK > 0)
            llama_sampler_chain_add(m_chain.get(), llama_sampler_init_top_k(s.topK));
        if (s.topP < 1.0f)
            llama_sampler_chain_add(m_chain.get(), llama_sampler_init_top_p(s.topP, 1));
        if (s.minP > 0.0f)
            llama_sampler_chain_add(m_chain.get(), llama_sampler_init_min_p(s.minP, 1));
        llama_sampler_chain_add(m_chain.get(), llama_sampler_init_temp(s.temperature));
        llama_sampler_chain_add(m_chain.get(), llama_sampler_init_dist(s.seed));
    }

    // Penalties lower the logits of tokens seen in the last repeatLastN ones; a boosting
    // penalty (below 1, or negative) could lift any token, so no shortcut then.
    const bool lowersOnly = s.repeatPenalty >= 1.0f && s.presencePenalty >= 0.0f && s.frequencyPenalty >= 0.0f;
    const int window = !penalties ? 0 : (s.repeatLastN > 0 ? s.repeatLastN : -1);
    const int64_t k = greedy ? 1 : s.topK;
    if (k > 0 && lowersOnly && window >= 0 && k + window < vocabSize / 4)
        m_keep = static_cast<int>(k + window);
}

llama_token CandidateSampler::sample(const float *logits)
{
    if (m_keep == 0 || m_forceFull) {
        m_cur.resize(size_t(m_vocab));
        for (llama_token id = 0; id < m_vocab; ++id)
            m_cur[size_t(id)] = llama_token_data{id, logits[id], 0.0f};
    } else {
        // The m_keep largest logits: a min-heap of the best so far, one comparison per token.
        // Ties at the edge keep the lower token id, as llama.cpp's sort tends to.
        auto worse = [](const llama_token_data &a, const llama_token_data &b) {
            return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
        };
        m_cur.clear();
        m_cur.reserve(size_t(m_keep));
        for (llama_token id = 0; id < m_keep; ++id)
            m_cur.push_back({id, logits[id], 0.0f});
        std::make_heap(m_cur.begin(), m_cur.end(), worse);
        float floor = m_cur.front().logit;
        // Blocks of 64 are first tested as a whole, a loop the compiler vectorises: after the
        // first few thousand logits hardly any block holds a new candidate.
        constexpr int kBlock = 64;
        for (int base = m_keep; base < m_vocab; base += kBlock) {
            const int end = std::min(base + kBlock, m_vocab);
            int any = 0;
            for (int i = base; i < end; ++i)
                any |= logits[i] > floor;
            if (!any)
                continue;
            for (int i = base; i < end; ++i) {
                if (!(logits[i] > floor))
                    continue; // NaN too
                std::pop_heap(m_cur.begin(), m_cur.end(), worse);
                m_cur.back() = {i, logits[i], 0.0f};
                std::push_heap(m_cur.begin(), m_cur.end(), worse);
                floor = m_cur.front().logit;
            }
        }
        // The chain sees them in vocabulary order, as it would the full array.
        std::sort(m_cur.begin(), m_cur.end(),
                  [](const llama_token_data &a, const llama_token_data &b) { return a.id < b.id; });
    }
    llama_token_data_array arr{m_cur.data(), m_cur.size(), -1, false};
    llama_sampler_apply(m_chain.get(), &arr);
    const llama_token token = arr.data[arr.selected].id;
    llama_sampler_accept(m_chain.get(), token);
    return token;
}

} // namespace shoehorn
