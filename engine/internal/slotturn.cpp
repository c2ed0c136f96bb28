#include "slotturn.h"

#include "answerstream.h"
#include "candidatesampler.h"
#include "rpcstate.h"
#include "stopwaker.h"
#include "model.h"

#include <common.h>

namespace shoehorn::internal {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

task_params taskParams(const GenerationOptions &o, const ChatPrompt &prompt, const server_context_meta &meta)
{
    task_params p;
    p.stream = true;
    p.return_progress = true;  // prompt progress after every micro-batch
    p.return_tokens = true;    // the final result carries the answer's token ids (LlamaServer.cmake)
    p.cache_prompt = true;
    p.n_predict = o.maxTokens; // -1: until the end of the answer or a full context
    p.antiprompt = prompt.stops;
    common_params_sampling &s = p.sampling;
    s.seed = o.sampling.seed;
    s.temp = o.sampling.temperature;
    s.top_k = o.sampling.topK;
    s.top_p = o.sampling.topP;
    s.min_p = o.sampling.minP;
    s.penalty_repeat = o.sampling.repeatPenalty;
    s.penalty_last_n = o.sampling.repeatLastN;
    s.penalty_present = o.sampling.presencePenalty;
    s.penalty_freq = o.sampling.frequencyPenalty;
    s.ignore_eos = o.ignoreEos;
    if (o.ignoreEos)
        s.logit_bias.insert(s.logit_bias.end(), meta.logit_bias_eog.begin(), meta.logit_bias_eog.end());
    // The reasoning tags are control tokens in some vocabularies: the answer must show them.
    s.preserved_tokens.insert(prompt.visibleSpecial.begin(), prompt.visibleSpecial.end());
    return p;
}

// The server's error, as the engine's: a full context mid-answer ends the answer, not the turn.
Error serverError(ServerLoop &loop, const std::string &message)
{
    if (message.find("exceeds the available context size") != std::string::npos)
        return Error{ErrorCode::PromptTooLong, message};
    if (auto remote = remoteFailure())
        return *remote;
    const std::string why = loop.loopErrors();
    const std::string detail = why.empty() ? message : message + ": " + why;
    return Error{looksLikeOutOfMemory(loop.loopLog()) ? ErrorCode::OutOfMemory : ErrorCode::DecodeFailed, detail};
}

StopReason stopReason(const server_task_result_cmpl_final &f)
{
    switch (f.stop) {
    case STOP_TYPE_EOS: return StopReason::EndOfGeneration;
    case STOP_TYPE_WORD: return StopReason::StopString;
    case STOP_TYPE_LIMIT: return f.truncated ? StopReason::ContextFull : StopReason::MaxTokens;
    case STOP_TYPE_NONE: break;
    }
    return StopReason::None;
}

std::string piece(const llama_vocab *vocab, llama_token t)
{
    return common_token_to_piece(vocab, t, true);
}

// Reads one turn's results: progress, text, the end.
class TurnReader
{
public:
    TurnReader(ServerLoop &loop, const SlotPrompt &turn, const StreamCallbacks &callbacks, GenerationResult &result,
               Clock::time_point start)
        : m_loop(loop), m_turn(turn), m_callbacks(callbacks), m_result(result), m_start(start),
          m_stream(withoutStops(turn.prompt), result, callbacks)
    {
    }

    // True when the turn ended (final result), false to read on.
    bool take(server_task_result &r)
    {
        if (auto *p = dynamic_cast<server_task_result_cmpl_partial *>(&r)) {
            p->is_progress ? progress(p->progress) : text(*p);
            return false;
        }
        if (auto *f = dynamic_cast<server_task_result_cmpl_final *>(&r)) {
            finish(*f);
            return true;
        }
        return false;
    }
    void stopped(GenerationStats &st)
    {
        m_stream.finish();
        st.stopReason = StopReason::Cancelled;
        st.generationMs = m_firstToken ? msSince(*m_firstToken) : 0;
        // The rate of what was written before Stop, counted as a finished answer's: the tokens
        // after the first over the time since it came.
        st.generationTokensPerSecond =
            st.generationMs > 0 && st.generatedTokens > 1 ? (st.generatedTokens - 1) * 1000.0 / st.generationMs : 0;
        st.contextUsed = st.promptTokens + st.generatedTokens;
    }
    const std::vector<llama_token> &finalTokens() const { return m_tokens; }

private:
    static ChatPrompt withoutStops(ChatPrompt p)
    {
        p.stops.clear(); // the server stops on them, and cuts them from the text
        return p;
    }

    void progress(const result_prompt_progress &pr)
    {
        GenerationStats &st = m_result.stats;
        st.reusedTokens = pr.cache;
        st.promptEvaluated = pr.total - pr.cache;
        const int done = pr.processed - pr.cache;
        // Pictures in the part the cache held are not read again.
        if (!m_imagesCounted) {
            m_imagesCounted = true;
            while (m_nextImage < m_turn.imageStarts.size() && m_turn.imageStarts[m_nextImage] < size_t(pr.cache))
                ++m_nextImage;
            m_firstNewImage = m_nextImage;
        }
        // An image is read when the prompt gets to it: say so before its (long) encoding.
        while (m_nextImage < m_turn.imageStarts.size() && size_t(pr.processed) >= m_turn.imageStarts[m_nextImage]) {
            ++m_nextImage;
            if (m_callbacks.onImage && pr.processed < pr.total)
                m_callbacks.onImage(int(m_nextImage - m_firstNewImage),
                                    int(m_turn.imageStarts.size() - m_firstNewImage));
        }
        if (m_callbacks.onPrefill)
            m_callbacks.onPrefill(done, pr.total - pr.cache);
    }

    void text(const server_task_result_cmpl_partial &p)
    {
        GenerationStats &st = m_result.stats;
        if (p.n_decoded <= 0)
            return; // the stream's first (empty) chunk
        if (!m_firstToken) {
            m_firstToken = Clock::now();
            st.timeToFirstTokenMs = msSince(m_start);
        }
        st.generatedTokens = p.n_decoded;
        m_stream.push(p.content);
        if (m_callbacks.onToken)
            m_callbacks.onToken(p.n_decoded, st.promptTokens + p.n_decoded);
    }

    void finish(server_task_result_cmpl_final &f)
    {
        m_stream.finish();
        GenerationStats &st = m_result.stats;
        st.promptTokens = f.n_prompt_tokens;
        st.reusedTokens = f.n_prompt_tokens_cache;
        st.promptEvaluated = f.n_prompt_tokens - f.n_prompt_tokens_cache;
        st.promptMs = double(f.stats.t_prompt_last - f.stats.t_start) / 1000.0;
        st.promptTokensPerSecond = st.promptMs > 0 ? st.promptEvaluated * 1000.0 / st.promptMs : 0;
        st.stopReason = stopReason(f);
        // The token that ended the answer (end of generation) is not part of it.
        st.generatedTokens = std::max(0, f.n_decoded - (st.stopReason == StopReason::EndOfGeneration ? 1 : 0));
        st.generationMs = f.stats.t_gen_last > f.stats.t_prompt_last
                              ? double(f.stats.t_gen_last - f.stats.t_prompt_last) / 1000.0
                              : 0;
        st.generationTokensPerSecond =
            st.generationMs > 0 && f.n_decoded > 1 ? (f.n_decoded - 1) * 1000.0 / st.generationMs : 0;
        st.contextUsed = f.n_tokens_cached;
        st.draftTokens = int(f.stats.n_draft_tokens);
        st.draftAccepted = int(f.stats.n_draft_accepted);
        m_tokens = std::move(f.tokens);
    }

    ServerLoop &m_loop;
    const SlotPrompt &m_turn;
    const StreamCallbacks &m_callbacks;
    GenerationResult &m_result;
    Clock::time_point m_start;
    AnswerStream m_stream;
    std::optional<Clock::time_point> m_firstToken;
    size_t m_nextImage = 0;
    size_t m_firstNewImage = 0;
    bool m_imagesCounted = false;
    std::vector<llama_token> m_tokens;
};

} // namespace

Result<GenerationResult> runTurn(ServerLoop &loop, const llama_vocab *vocab, SlotPrompt &&turn,
                                 const GenerationOptions &options, const StreamCallbacks &callbacks,
                                 const std::atomic<bool> *cancel, Clock::time_point start, SlotCache &cache)
{
    GenerationResult result;
    GenerationStats &st = result.stats;
    st.promptTokens = int(turn.tokens.size());
    st.trimmedMessages = turn.trimmed;
    st.contextSize = int(loop.slotContextSize());
    server_tokens promptTokens = turn.tokens.clone();
    const std::string promptText = turn.prompt.text;

    server_response_reader rd = loop.server().get_response_reader();
    server_task task(SERVER_TASK_TYPE_COMPLETION);
    task.id = rd.get_new_id();
    const int taskId = task.id;
    task.id_slot = ServerLoop::kDesktopSlot;
    task.shoehorn_reserved = true;
    task.params = taskParams(options, turn.prompt, loop.meta());
    // The chat's own sampler where it gives the same choice cheaper (CandidateSampler: top-k in one
    // pass over the logits, not a copy of the whole vocabulary per token); llama.cpp's otherwise.
    if (!options.ignoreEos) {
        auto sampler = std::make_shared<CandidateSampler>(options.sampling, llama_vocab_n_tokens(vocab));
        task.shoehorn_sampler = [sampler](llama_context *ctx, int32_t idx) {
            return sampler->sample(llama_get_logits_ith(ctx, idx));
        };
    }
    task.tokens = std::move(turn.tokens);
    loop.clearLoopLog();
    cache.clear(); // valid again once the answer has ended
    rd.post_task(std::move(task));
    rd.states.clear(); // the raw text: the chat splits reasoning itself, and shows text that is not UTF-8

    TurnReader reader(loop, turn, callbacks, result, start);
    const auto stop = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    // Stop is seen within ~10 ms even while no result comes (the reader itself looks once a second).
    StopWaker waker(rd.queue_results, taskId, cancel ? std::function<bool()>(stop) : std::function<bool()>());
    for (;;) {
        server_task_result_ptr r = stop() ? nullptr : rd.next(stop);
        if (!r) { // Stop: the reader cancels the task when it goes
            reader.stopped(st);
            return result;
        }
        if (r->is_error()) {
            if (stop()) {
                reader.stopped(st);
                return result;
            }
            const json e = r->to_json();
            const std::string message = e.value("message", std::string("the server loop failed"));
            if (message.find("Context size has been exceeded") != std::string::npos && st.generatedTokens > 0) {
                reader.stopped(st);
                st.stopReason = StopReason::ContextFull;
                return result;
            }
            return serverError(loop, message);
        }
        if (reader.take(*r))
            break;
        if (stop()) {
            reader.stopped(st);
            return result;
        }
    }
    // What the slot holds: the prompt and every answer token but the last sampled one, which
    // was never decoded.
    const std::vector<llama_token> &answer = reader.finalTokens();
    if (!answer.empty()) {
        cache.tokens = std::move(promptTokens);
        cache.text = promptText;
        cache.images = turn.imageStarts.size();
        for (size_t i = 0; i + 1 < answer.size(); ++i) {
            cache.tokens.push_back(answer[i]);
            cache.text += piece(vocab, answer[i]);
        }
        cache.valid = true;
    }
    return result;
}

} // namespace shoehorn::internal
