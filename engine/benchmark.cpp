#include "benchmark.h"

#include "guarded.h"

#include "decodestatus.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "validate.h"

#include <llama-cpp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

namespace shoehorn {

extern std::atomic<int> g_liveBenchContexts; // diagnostics.h

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from)
{
    return std::chrono::duration<double>(Clock::now() - from).count();
}

// llama-bench's test_prompt: random tokens in n_batch chunks. Returns llama_decode's result.
int32_t decodePrompt(llama_context *ctx, int n, std::mt19937 &rng)
{
    const llama_vocab *vocab = llama_model_get_vocab(llama_get_model(ctx));
    const int nVocab = llama_vocab_n_tokens(vocab);
    const int batch = static_cast<int>(llama_n_batch(ctx));
    std::vector<llama_token> tokens(static_cast<size_t>(batch));
    for (int done = 0; done < n;) {
        const int count = std::min(n - done, batch);
        for (int i = 0; i < count; ++i)
            tokens[static_cast<size_t>(i)] = static_cast<llama_token>(rng() % static_cast<unsigned>(nVocab));
        if (done == 0 && llama_vocab_get_add_bos(vocab))
            tokens[0] = llama_vocab_bos(vocab);
        if (const int32_t rc = llama_decode(ctx, llama_batch_get_one(tokens.data(), count)))
            return rc;
        done += count;
    }
    llama_synchronize(ctx);
    return 0;
}

// llama-bench's test_gen: one token at a time, no sampling. Returns llama_decode's result.
int32_t decodeTokens(llama_context *ctx, int n, std::mt19937 &rng)
{
    const llama_vocab *vocab = llama_model_get_vocab(llama_get_model(ctx));
    const int nVocab = llama_vocab_n_tokens(vocab);
    llama_token token = llama_vocab_get_add_bos(vocab) ? llama_vocab_bos(vocab) : 0;
    for (int i = 0; i < n; ++i) {
        if (const int32_t rc = llama_decode(ctx, llama_batch_get_one(&token, 1)))
            return rc;
        llama_synchronize(ctx);
        token = static_cast<llama_token>(rng() % static_cast<unsigned>(nVocab));
    }
    return 0;
}

// A benchmark run's decode that did not succeed. The contexts are sized for the test and
// have no abort callback, so even "context full" means the measurement is broken.
Error benchDecodeError(const char *test, int32_t rc, const LogCapture &capture)
{
    Error e = decodeError(rc, capture);
    if (decodeStatus(rc) == DecodeStatus::Aborted)
        e.code = ErrorCode::Cancelled;
    e.detail = std::string(test) + ": " + e.detail;
    return e;
}

// Like llama-bench, each test gets a context (and CPU thread pool) of its own, sized as
// llama-bench sizes it: n_prompt for pp, n_gen for tg. The chat path gets the user's.
// Counts itself in liveEngineObjects() while the context lives.
struct CountedContext {
    CountedContext() { ++g_liveBenchContexts; }
    ~CountedContext() { --g_liveBenchContexts; }
    CountedContext(const CountedContext &) = delete;
    CountedContext &operator=(const CountedContext &) = delete;
};

struct TestContext {
    std::unique_ptr<CpuThreadPools> threads; // before ctx: must outlive it
    llama_context_ptr ctx;
    std::unique_ptr<CountedContext> counted = std::make_unique<CountedContext>();
};

// What the tests of one runBenchmark() call share: the model, the settings, when to stop,
// the random tokens and the log capture that explains a failure.
struct BenchRun {
    const std::shared_ptr<Model> &model;
    const ContextSettings &context;
    const BenchRequest &request;
    EarlyStop stop;
    const std::atomic<bool> *cancel;
    const std::function<void(const std::string &)> &progress;
    const LogCapture &capture;
    std::mt19937 rng{1234};

    bool cancelled() const { return cancel && cancel->load(); }
    void report(const std::string &what) const
    {
        if (progress)
            progress(what);
    }
};

Result<TestContext> makeTestContext(const BenchRun &run, int tokens)
{
    ContextSettings bench = run.context;
    bench.contextSize = static_cast<uint32_t>(std::max(tokens, 1));
    TestContext t;
    t.threads = std::make_unique<CpuThreadPools>(bench);
    t.ctx.reset(llama_init_from_model(internal::llamaModel(*run.model), contextParams(bench)));
    if (!t.ctx) {
        const std::string why = run.capture.lastError();
        return Error{looksLikeOutOfMemory(run.capture.all()) ? ErrorCode::OutOfMemory : ErrorCode::ContextFailed,
                     why.empty() ? "llama.cpp could not create a benchmark context" : why};
    }
    t.threads->attach(t.ctx.get());
    return t;
}

// pp: prompt processing of request.promptTokens random tokens, after a warm-up run.
std::optional<Error> timePrompt(BenchRun &run, std::vector<double> &runs)
{
    const int n = run.request.promptTokens;
    auto test = makeTestContext(run, n);
    if (!test)
        return test.error();
    llama_context *ctx = test->ctx.get();
    llama_memory_t mem = llama_get_memory(ctx);
    decodePrompt(ctx, n, run.rng); // warm-up
    while (!run.stop.done(runs) && !run.cancelled()) {
        llama_memory_clear(mem, false);
        const auto t = Clock::now();
        if (const int32_t rc = decodePrompt(ctx, n, run.rng))
            return benchDecodeError("prompt processing", rc, run.capture);
        runs.push_back(n / seconds(t));
        run.report("pp" + std::to_string(n) + " run " + std::to_string(runs.size()));
    }
    return std::nullopt;
}

// tg: request.generateTokens single-token decodes, after a one-token warm-up.
std::optional<Error> timeGeneration(BenchRun &run, std::vector<double> &runs)
{
    const int n = run.request.generateTokens;
    auto test = makeTestContext(run, n);
    if (!test)
        return test.error();
    llama_context *ctx = test->ctx.get();
    llama_memory_t mem = llama_get_memory(ctx);
    decodeTokens(ctx, 1, run.rng); // warm-up
    while (!run.stop.done(runs) && !run.cancelled()) {
        llama_memory_clear(mem, false);
        const auto t = Clock::now();
        if (const int32_t rc = decodeTokens(ctx, n, run.rng))
            return benchDecodeError("generation", rc, run.capture);
        runs.push_back(n / seconds(t));
        run.report("tg" + std::to_string(n) + " run " + std::to_string(runs.size()));
    }
    return std::nullopt;
}

// The chat path: whole answers through a ChatSession in the user's context (made big
// enough for the answer), after a warm-up answer.
std::optional<Error> timeChatPath(BenchRun &run, std::vector<double> &runs)
{
    ContextSettings cs = run.context;
    cs.contextSize = std::max<uint32_t>(cs.contextSize, static_cast<uint32_t>(run.request.generateTokens + 256));
    auto session = ChatSession::create(run.model, cs);
    if (!session)
        return session.error();
    // Speculation asked for and turned off by the session: not what this measurement is of.
    if (const SpeculationOff &off = (*session)->speculationOff(); off.why != SpeculationOff::Why::None)
        return Error{ErrorCode::InvalidArgument, off.sentence};
    GenerationOptions o;
    o.maxTokens = run.request.generateTokens;
    o.sampling.seed = 42;
    // A forced long answer: the benchmark must not end early on an end-of-generation token.
    o.stop.clear();
    size_t bytes = 0;
    StreamCallbacks cb;
    cb.onDelta = [&](std::string_view c, std::string_view rs) { bytes += c.size() + rs.size(); };
    if (auto warm = (*session)->generate({{"user", "Warm up.", {}}}, o, cb, run.cancel); !warm)
        return warm.error();
    while (!run.stop.done(runs) && !run.cancelled()) {
        (*session)->clearCache();
        auto res = (*session)->generate({{"user", "Tell me about memory on small GPUs.", {}}}, o, cb, run.cancel);
        if (!res)
            return res.error();
        if (res->stats.generatedTokens == 0)
            break;
        runs.push_back(res->stats.generationTokensPerSecond);
        run.report("chat run " + std::to_string(runs.size()));
    }
    return std::nullopt;
}

} // namespace

Stats summarize(const std::vector<double> &v)
{
    Stats s;
    s.samples = static_cast<int>(v.size());
    if (v.empty())
        return s;
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
    if (v.size() > 1) {
        double sq = 0;
        for (double x : v)
            sq += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(sq / double(v.size() - 1));
    }
    return s;
}

bool EarlyStop::done(const std::vector<double> &values) const
{
    const int n = static_cast<int>(values.size());
    if (n >= maxSamples)
        return true;
    if (n < minSamples || relativeError <= 0)
        return false;
    const Stats s = summarize(values);
    return s.mean > 0 && (s.stddev / std::sqrt(double(n))) / s.mean <= relativeError;
}

Result<BenchResult> runBenchmark(const std::shared_ptr<Model> &model, const ContextSettings &context,
                                 const BenchRequest &r, const std::atomic<bool> *cancel,
                                 const std::function<void(const std::string &)> &progress)
{
    return internal::guarded(ErrorCode::DecodeFailed, [&]() -> Result<BenchResult> {
        if (!model)
            return Error{ErrorCode::NoModel, "no model"};
        if (Error e = validate(context))
            return e;
        LogCapture capture;
        const EarlyStop stop = r.stop.maxSamples > 0 && r.stop.relativeError > 0
                                   ? r.stop
                                   : EarlyStop{r.repetitions, r.repetitions, 0.0};
        BenchRun run{model, context, r, stop, cancel, progress, capture};
        BenchResult out;
        if (r.promptTokens > 0) {
            if (auto e = timePrompt(run, out.promptRuns))
                return *e;
        }
        if (r.generateTokens > 0 && r.rawGeneration) {
            if (auto e = timeGeneration(run, out.generateRuns))
                return *e;
        }
        if (r.generateTokens > 0 && r.chatPath) {
            if (auto e = timeChatPath(run, out.chatRuns))
                return *e;
        }
        out.promptTps = summarize(out.promptRuns);
        out.generateTps = summarize(out.generateRuns);
        out.chatTps = summarize(out.chatRuns);
        return out;
    });
}

} // namespace shoehorn
