#include "serverloop.h"

#include "devices.h"

#include "diagnostics.h"

#include "llamahandles.h"
#include "model.h"

#include <log.h>
#include <server-common.h>
#include <sampling.h>
#include <speculative.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <type_traits>

namespace shoehorn {

std::atomic<int> g_liveServerContexts{0}; // diagnostics.h
std::atomic<int> g_liveProjectors{0};     // counted by Projector
std::atomic<int> g_liveModels{0};         // counted by Model
std::atomic<int> g_liveBenchContexts{0};  // counted by the benchmark's test contexts

EngineObjects liveEngineObjects()
{
    return EngineObjects{g_liveServerContexts.load(), g_liveProjectors.load(), g_liveModels.load(),
                         g_liveBenchContexts.load()};
}

} // namespace shoehorn

namespace shoehorn::internal {

namespace {

llama_flash_attn_type flashType(FlashAttention f)
{
    switch (f) {
    case FlashAttention::On: return LLAMA_FLASH_ATTN_TYPE_ENABLED;
    case FlashAttention::Off: return LLAMA_FLASH_ATTN_TYPE_DISABLED;
    case FlashAttention::Auto: break;
    }
    return LLAMA_FLASH_ATTN_TYPE_AUTO;
}

// Shoehorn's speculation settings over llama-server's (the flags serve was given, or its
// defaults): the type list, the draft model and the draft lengths; the rest stays (n-gram sizes,
// synthetic acceptance, the draft model's placement flags).
void applySpeculation(const SpeculationSettings &s, common_params_speculative &out)
{
    try { // validate() refused unknown names
        out.types = common_speculative_types_from_names(string_split<std::string>(s.running(), ','));
    } catch (const std::invalid_argument &) {
        out.types = {COMMON_SPECULATIVE_TYPE_NONE};
    }
    out.draft.mparams.path = s.draftModel;
    if (s.draftMax > 0)
        out.draft.n_max = s.draftMax;
    if (s.draftMin > 0)
        out.draft.n_min = s.draftMin;
    if (s.ngramSizeN > 0)
        out.ngram_simple.size_n = uint16_t(s.ngramSizeN);
}

// Whether speculation runs a second llama_context (a draft model, or the model's MTP layers).
bool usesDraftContext(const common_params_speculative &s)
{
    if (s.has_dft())
        return true;
    for (common_speculative_type t : s.types)
        if (t == COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE || t == COMMON_SPECULATIVE_TYPE_DRAFT_EAGLE3 ||
            t == COMMON_SPECULATIVE_TYPE_DRAFT_MTP || t == COMMON_SPECULATIVE_TYPE_DRAFT_DFLASH ||
            t == COMMON_SPECULATIVE_TYPE_DRAFT_DSPARK)
            return true;
    return false;
}

// llama-server's context parameters for Shoehorn's settings.
common_params contextPart(const ContextSettings &c, const LoopSlots &slots)
{
    common_params p;
    p.n_parallel = slots.count();
    // The app: one pool of cells for every slot: the desktop chat may use the whole context, API
    // requests what it leaves free, and the memory is the same whether the API is on or off.
    // serve: as llama-server's -kvu / -np say.
    p.kv_unified = slots.desktop || slots.kvUnified;
    p.n_ctx = int32_t(c.contextSize);
    // One micro-batch per decode: prompt progress after each, and Stop between them on any backend.
    // At least two tokens: the server decodes two when it starts (common_context_can_seq_rm), and
    // llama.cpp asserts a batch holds them (-ub 1 aborted).
    // llama.cpp takes the smaller of -b and -ub as the micro-batch (-b 64 reports prompt progress
    // every 64 tokens in llama-server; llama.cpp's server suite checks it).
    p.n_ubatch = int32_t(std::clamp<uint32_t>(c.ubatchSize, 1, std::max<uint32_t>(1, c.batchSize)));
    p.n_batch = std::max<int32_t>(2, p.n_ubatch);
    p.cache_type_k = kvCacheType(c.typeK);
    p.cache_type_v = kvCacheType(c.typeV);
    p.flash_attn_type = flashType(c.flashAttention);
    const int threads = c.threads > 0 ? c.threads : physicalCoreCount();
    p.cpuparams.n_threads = threads;
    p.cpuparams_batch.n_threads = c.threadsBatch > 0 ? c.threadsBatch : threads;
    p.swa_full = false;
    applySpeculation(c.speculation, p.speculative);
    return p;
}

// What the model file recommends (general.sampling.*) where the command line set nothing, as
// llama.cpp's common_init_from_params() does when it loads a model (its function for it is
// static in common.cpp; the same keys and the same rule here).
void applyModelSampling(const llama_model *model, common_params_sampling &s)
{
    const uint64_t given = s.user_sampling_config;
    const auto read = [&](llama_model_meta_key key, uint64_t flag, auto &dst) {
        if (given & flag)
            return;
        char buf[128] = {0};
        if (llama_model_meta_val_str(model, llama_model_meta_key_str(key), buf, sizeof buf) <= 0)
            return;
        char *end = nullptr;
        if constexpr (std::is_same_v<std::decay_t<decltype(dst)>, float>) {
            const float v = std::strtof(buf, &end);
            if (end != buf)
                dst = v;
        } else {
            const long v = std::strtol(buf, &end, 10);
            if (end != buf)
                dst = int32_t(v);
        }
    };
    if (!(given & COMMON_PARAMS_SAMPLING_CONFIG_SAMPLERS)) {
        char buf[512] = {0};
        if (llama_model_meta_val_str(model, llama_model_meta_key_str(LLAMA_MODEL_META_KEY_SAMPLING_SEQUENCE), buf,
                                     sizeof buf) > 0) {
            const auto names = string_split<std::string>(std::string(buf), ';');
            if (!names.empty())
                s.samplers = common_sampler_types_from_names(names);
        }
    }
    read(LLAMA_MODEL_META_KEY_SAMPLING_TOP_K, COMMON_PARAMS_SAMPLING_CONFIG_TOP_K, s.top_k);
    read(LLAMA_MODEL_META_KEY_SAMPLING_TOP_P, COMMON_PARAMS_SAMPLING_CONFIG_TOP_P, s.top_p);
    read(LLAMA_MODEL_META_KEY_SAMPLING_MIN_P, COMMON_PARAMS_SAMPLING_CONFIG_MIN_P, s.min_p);
    read(LLAMA_MODEL_META_KEY_SAMPLING_XTC_PROBABILITY, COMMON_PARAMS_SAMPLING_CONFIG_XTC_PROBABILITY, s.xtc_probability);
    read(LLAMA_MODEL_META_KEY_SAMPLING_XTC_THRESHOLD, COMMON_PARAMS_SAMPLING_CONFIG_XTC_THRESHOLD, s.xtc_threshold);
    read(LLAMA_MODEL_META_KEY_SAMPLING_TEMP, COMMON_PARAMS_SAMPLING_CONFIG_TEMP, s.temp);
    read(LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_LAST_N, COMMON_PARAMS_SAMPLING_CONFIG_PENALTY_LAST_N, s.penalty_last_n);
    read(LLAMA_MODEL_META_KEY_SAMPLING_PENALTY_REPEAT, COMMON_PARAMS_SAMPLING_CONFIG_PENALTY_REPEAT, s.penalty_repeat);
    read(LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT, COMMON_PARAMS_SAMPLING_CONFIG_MIROSTAT, s.mirostat);
    read(LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_TAU, COMMON_PARAMS_SAMPLING_CONFIG_MIROSTAT_TAU, s.mirostat_tau);
    read(LLAMA_MODEL_META_KEY_SAMPLING_MIROSTAT_ETA, COMMON_PARAMS_SAMPLING_CONFIG_MIROSTAT_ETA, s.mirostat_eta);
}

// ...and the rest of llama-server's parameters: the command line's where there is one, with
// what Shoehorn owns set over it. The model's placement (-ngl, --n-cpu-moe) is not here: the
// model is loaded already.
common_params loopParams(const Model &model, const LoopSettings &s)
{
    const ServerArgs args = s.server.value_or(ServerArgs());
    common_params p = Access::params(args);
    const common_params context = contextPart(s.context, s.slots);
    p.n_parallel = context.n_parallel;
    p.kv_unified = context.kv_unified;
    p.n_ctx = context.n_ctx;
    p.n_batch = context.n_batch;
    p.n_ubatch = context.n_ubatch;
    p.cache_type_k = context.cache_type_k;
    p.cache_type_v = context.cache_type_v;
    p.flash_attn_type = context.flash_attn_type;
    p.cpuparams = context.cpuparams;
    p.cpuparams_batch = context.cpuparams_batch;
    p.swa_full = context.swa_full;
    applySpeculation(s.context.speculation, p.speculative);
    // A draft model goes where the model went (llama-server's -devd defaults to llama.cpp's own
    // choice, which for a card two backends see would be the other backend's device of it).
    if (p.speculative.draft.devices.empty())
        if (auto devices = modelDeviceHandles(model.settings()))
            p.speculative.draft.devices = std::move(*devices);
    p.kv_unified_per_slot = 0;
    p.model.path = model.info().path;
    p.ctx_shift = s.contextShift || p.ctx_shift;
    p.fit_params = false;    // Shoehorn planned and placed the model already
    p.warmup = false;        // a warm-up decode would run on the caller's thread
    p.cache_ram_mib = 0;     // no host-RAM prompt cache beyond the slots: memory stays as planned
    p.sleep_idle_seconds = -1;
    p.cache_idle_slots = false; // needs a RAM prompt cache, which there is none of
    // llama-server's --alias a,b and --tags stay as given; the app's alias, or the file's name.
    if (p.model_alias.empty())
        p.model_alias = {s.alias.empty() ? std::filesystem::path(model.info().path).filename().string() : s.alias};
    applyModelSampling(llamaModel(model), p.sampling);
    if (p.chat_template.empty())
        p.chat_template = s.chatTemplate;
    return p;
}

} // namespace

llama_context_params loopContextParams(const ContextSettings &context, const LoopSlots &slots)
{
    common_params p = contextPart(context, slots);
    // What the server sets before it creates its context (server_output_limits).
    auto limits = common_speculative_get_output_limits(p.n_batch, p.n_parallel, common_speculative_n_max(&p.speculative));
    p.n_outputs_max = std::max<int32_t>(1, limits.total);
    p.n_outputs_max_per_seq = std::max<int32_t>(1, limits.per_seq);
    return common_context_params_to_llama(p);
}

llama_context_params loopDraftContextParams(const ContextSettings &context, const LoopSlots &slots, uint32_t targetCells,
                                           bool mtp)
{
    // As common_speculative_init_result makes it from the loop's parameters.
    const common_params p = common_base_params_to_speculative(contextPart(context, slots));
    llama_context_params c = common_context_params_to_llama(p);
    if (mtp)
        c.ctx_type = LLAMA_CONTEXT_TYPE_MTP;
    c.n_ctx = targetCells;
    c.n_rs_seq = 0;
    return c;
}

Result<std::unique_ptr<ServerLoop>> ServerLoop::start(const Model &model, const LoopSettings &settings,
                                                      mtmd_context *projector)
{
    // llama-server's own log (requests, slots, timings) is for a terminal that runs only it:
    // warnings and errors only, unless SHOEHORN_LLAMA_LOG asks for llama.cpp's whole log.
    static std::once_flag quiet;
    std::call_once(quiet, [] {
        const char *env = std::getenv("SHOEHORN_LLAMA_LOG");
        if (!env || !*env || std::string(env) == "0")
            common_log_set_verbosity_thold(LOG_LEVEL_WARN);
    });
    auto loop = std::unique_ptr<ServerLoop>(new ServerLoop());
    loop->m_settings = settings;
    loop->m_params = loopParams(model, settings);
    loop->m_projector = projector;
    LogCapture capture;
    loop->m_server.set_reserved_slot(settings.slots.desktop ? kDesktopSlot : -1);
    const bool loaded = loop->m_server.load_model_shared(loop->m_params, llamaModel(model), projector);
    // llama-server points libmtmd's log at its own logger when it loads: take it back.
    LogCapture::reinstallLogger();
    if (!loaded) {
        const std::string why = capture.lastError().empty()
                                    ? "llama.cpp could not create the context (" + std::to_string(settings.context.contextSize) +
                                          " tokens)"
                                    : capture.lastError();
        return Error{looksLikeOutOfMemory(capture.all()) ? ErrorCode::OutOfMemory : ErrorCode::ContextFailed, why};
    }
    loop->m_startError = capture.lastError();
    llama_context *ctx = loop->m_server.get_llama_context();
    loop->m_counted = true;
    ++g_liveServerContexts;
    // Persistent CPU thread pools (about 10 % of generation speed on the CPU), unless a draft
    // context runs beside this one: llama.cpp gives that one threads of its own per graph, and
    // this pool's threads, still polling after each step, took the cores from them (a draft
    // model decoded at 20 tok/s instead of 2000 on 2 cores).
    if (!usesDraftContext(loop->m_params.speculative)) {
        loop->m_pools = std::make_unique<CpuThreadPools>(settings.context);
        loop->m_pools->attach(ctx);
    }
    llama_set_abort_callback(ctx, &ServerLoop::abortCallback, loop.get());
    loop->m_meta = std::make_unique<server_context_meta>(loop->m_server.get_meta());
    ServerLoop *raw = loop.get();
    loop->m_loop = std::thread([raw] {
        LogCapture log(true);
        raw->m_log.store(&log);
        raw->m_server.start_loop();
        raw->m_log.store(nullptr);
        raw->m_ended.store(true);
    });
    return loop;
}

ServerLoop::~ServerLoop()
{
    // start_loop() sets its queue running when it begins: a terminate() that came before is
    // lost, so ask until the loop has ended.
    while (m_loop.joinable() && !m_ended.load()) {
        m_server.terminate();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (m_loop.joinable())
        m_loop.join();
    if (m_counted)
        --g_liveServerContexts;
}

const std::atomic<bool> &ServerLoop::desktopWorkOnly() const
{
    return m_server.reserved_batch_abortable();
}

bool ServerLoop::abortCallback(void *data)
{
    auto *self = static_cast<ServerLoop *>(data);
    const std::atomic<bool> *flag = self->m_cancel.load(std::memory_order_relaxed);
    return flag && flag->load(std::memory_order_relaxed) && self->desktopWorkOnly().load();
}

llama_context *ServerLoop::context() const
{
    return const_cast<server_context &>(m_server).get_llama_context();
}

llama_context *ServerLoop::draftContext() const
{
    return m_server.get_draft_context();
}

llama_model *ServerLoop::draftModel() const
{
    return m_server.get_draft_model();
}

uint32_t ServerLoop::contextSize() const
{
    return llama_n_ctx(context());
}

namespace {

json slotsData(server_context &server)
{
    server_response_reader rd = server.get_response_reader();
    server_task task(SERVER_TASK_TYPE_SLOT_GET);
    task.id = rd.get_new_id();
    rd.post_task(std::move(task));
    server_task_result_ptr r = rd.next([] { return false; });
    auto *slots = dynamic_cast<server_task_result_slots *>(r.get());
    return slots ? slots->slots_data : json::array();
}

} // namespace

int ServerLoop::slotTokens(int id)
{
    for (const auto &j : slotsData(m_server))
        if (j.value("id", -1) == id)
            return j.value("n_prompt_tokens", 0);
    return 0;
}

bool ServerLoop::speculating()
{
    const json slots = slotsData(m_server);
    return !slots.empty() && slots.front().value("speculative", false);
}

std::string ServerLoop::loopErrors() const
{
    const LogCapture *log = m_log.load();
    return log ? log->lastError() : std::string();
}

std::string ServerLoop::loopLog() const
{
    const LogCapture *log = m_log.load();
    return log ? log->all() : std::string();
}

void ServerLoop::clearLoopLog()
{
    if (LogCapture *log = m_log.load())
        log->clear();
}

} // namespace shoehorn::internal
