// The plan as llama.cpp has it: its dry run of a load (exactPlan), and what a loaded session
// allocated (measuredPlan), laid out like an analytic plan of the same settings.
#include "planner.h"

#include "chatsession.h"
#include "filepages.h"
#include "guarded.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "logcapture.h"
#include "backends.h"
#include "planparts.h"
#include "serverloop.h"
#include "validate.h"

#include <fit.h>
#include <ggml-backend.h>
#include <llama-cpp.h>
#include <llama-ext.h>
#include <llama.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace shoehorn {

namespace {

using DeviceBytes = std::vector<common_device_memory_data>;

// llama.cpp's buffers of one context per device of `main` (its devices in order, then RAM).
// `loaded`: a real load (not the no_alloc dry run, whose breakdown already counts tensors).
DeviceBytes llamaBytes(const llama_model *main, const llama_model *model, const llama_context *ctx, bool loaded)
{
    const int nDev = llama_model_n_devices(main);
    DeviceBytes data(static_cast<size_t>(nDev) + 1, common_device_memory_data{0, 0, 0, 0, 0});
    const auto inRam = loaded ? internal::hostWeightBytes(model) : std::map<ggml_backend_buffer_type_t, uint64_t>{};
    for (auto [buft, mb] : llama_get_memory_breakdown(ctx)) {
        if (const auto w = inRam.find(buft); w != inRam.end())
            mb.model = w->second; // a mapped span counts only the weights used in place
        size_t slot = data.size() - 1; // RAM
        ggml_backend_dev_t dev = ggml_backend_buft_get_device(buft);
        if (!ggml_backend_buft_is_host(buft) && dev && ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_CPU) {
            for (int i = 0; i < nDev; ++i)
                if (llama_model_get_device(main, i) == dev)
                    slot = static_cast<size_t>(i);
        }
        data[slot].model += mb.model;
        data[slot].context += mb.context;
        data[slot].compute += mb.compute;
    }
    return data;
}

// Speculation's second context, where one runs: on a draft model of its own, or (model null)
// on the main model's MTP layers.
struct DraftHandles {
    const llama_model *model = nullptr;
    const llama_context *ctx = nullptr;
};

// What llama.cpp allocated (or would, for a no_alloc model) per device, laid out like `shape`.
MemoryPlan measuredFromLlama(const llama_model *model, const llama_context *ctx, const MemoryPlan &shape, bool loaded,
                             DraftHandles draft = {})
{
    const DeviceBytes data = llamaBytes(model, model, ctx, loaded);
    const DeviceBytes drafted = draft.ctx ? llamaBytes(model, draft.model ? draft.model : model, draft.ctx, loaded)
                                          : DeviceBytes(data.size(), common_device_memory_data{0, 0, 0, 0, 0});
    // The MTP layers' weights are among the main model's: their share as the plan has it.
    const bool mtp = draft.ctx && !draft.model;

    // Split the measured totals into kinds with the analytic proportions of each device.
    MemoryPlan plan = shape;
    plan.exact = true;
    auto fill = [mtp](DevicePlan &d, const common_device_memory_data &x, const common_device_memory_data &dx) {
        const MemoryUse a = d.use;
        d.use = MemoryUse{};
        const uint64_t mtpWeights = mtp ? a.draftWeights : 0;
        const double mtpShare = mtpWeights ? double(mtpWeights) / double(a.weights() + mtpWeights) : 0.0;
        d.use.draftWeights = mtp ? static_cast<uint64_t>(std::llround(double(x.model) * mtpShare)) : dx.model;
        const uint64_t trunk = x.model - (mtp ? d.use.draftWeights : 0);
        const double wShare = a.weights() ? double(a.weightsExperts) / double(a.weights()) : 0.0;
        d.use.weightsExperts = static_cast<uint64_t>(std::llround(double(trunk) * wShare));
        d.use.weightsDense = trunk - d.use.weightsExperts;
        const double kvTotal = double(a.kv());
        if (kvTotal > 0) {
            d.use.kvSwa = static_cast<uint64_t>(std::llround(double(x.context) * double(a.kvSwa) / kvTotal));
            d.use.recurrent = static_cast<uint64_t>(std::llround(double(x.context) * double(a.recurrent) / kvTotal));
        }
        d.use.kvFull = x.context - d.use.kvSwa - d.use.recurrent;
        d.use.compute = x.compute;
        d.use.draftKv = dx.context;
        d.use.draftCompute = dx.compute;
    };
    // By name: a device llama.cpp used that the plan lacks (the plan was made for other devices
    // than the load took) shows as a device of its own, a planned one it did not use as empty.
    const common_device_memory_data none{0, 0, 0, 0, 0};
    std::vector<bool> placed(plan.gpus.size(), false);
    for (size_t i = 0; i + 1 < data.size(); ++i) {
        ggml_backend_dev_t dev = llama_model_get_device(model, static_cast<int>(i));
        const std::string name = ggml_backend_dev_name(dev);
        auto it = std::find_if(plan.gpus.begin(), plan.gpus.end(), [&](const DevicePlan &d) { return d.name == name; });
        if (it == plan.gpus.end()) {
            DevicePlan extra;
            extra.name = name;
            extra.description = ggml_backend_dev_description(dev);
            plan.gpus.push_back(extra);
            placed.push_back(false);
            it = plan.gpus.end() - 1;
        }
        placed[size_t(it - plan.gpus.begin())] = true;
        fill(*it, data[i], drafted[i]);
    }
    for (size_t i = 0; i < plan.gpus.size(); ++i)
        if (!placed[i])
            fill(plan.gpus[i], none, none);
    fill(plan.ram, data.back(), drafted.back());
    plan.ram.use.overhead += plan.mlockCopiedBytes; // not a llama.cpp buffer (setFilePages)
    return plan;
}

} // namespace

Result<MemoryPlan> exactPlan(const std::string &path, const PlanSettings &s, const PlanTarget &t)
{
    return internal::guarded(ErrorCode::LoadFailed, [&]() -> Result<MemoryPlan> {
        auto info = inspectModel(path);
        if (!info)
            return info.error();
        if (Error e = validateMemory(*info, s.context, t))
            return e;
        internal::initBackends();
        if (Error e = checkDevices(s.load))
            return e;
        LogCapture::installLogger();

        ModelParams params(s.load, static_cast<int>(info->layerCount));
        llama_model_params &mp = params.get();
        const internal::LoopSlots slots{s.apiSlots, s.desktopSlot, s.kvUnified};
        const llama_context_params cp =
            s.serverLoop ? internal::loopContextParams(s.context, slots) : contextParams(s.context, s.parallel);

        // The dry run of common_get_device_memory_data(), but counting every CPU buffer type:
        // llama.cpp's own helper skips the CPU "extra" (repacked weight) buffers, which only
        // matters when fitting GPUs, while we plan RAM too.
        mp.no_alloc = true;
        mp.load_mode = LLAMA_LOAD_MODE_NONE;
        // A target whose CPU repacks nothing (see PlanTarget::cpuRepackTypes): no AMX or CPU_REPACK.
        if (!t.cpuAmx && t.cpuRepackTypes.empty())
            mp.use_extra_bufts = false;
        LogCapture capture;
        llama_model_ptr model(llama_model_load_from_file(path.c_str(), mp));
        if (!model) {
            const std::string why = capture.lastError();
            return Error{ErrorCode::LoadFailed,
                         "llama.cpp's dry run could not load the model" + (why.empty() ? std::string() : ": " + why)};
        }
        llama_context_ptr ctx(llama_init_from_model(model.get(), cp));
        if (!ctx) {
            const std::string why = capture.lastError();
            return Error{ErrorCode::ContextFailed, "llama.cpp's dry run could not create the context" +
                                                       (why.empty() ? std::string() : ": " + why)};
        }
        // Speculation's second context, dry-run beside it as the loop would create it.
        const bool mtp = internal::mtpContext(*info, s);
        const bool drafting = s.draftModel && !s.context.speculation.draftModel.empty();
        llama_model_ptr draftModel;
        llama_context_ptr draftCtx;
        if (mtp || drafting) {
            if (drafting) {
                LoadSettings dl;
                dl.loadMode = s.load.loadMode;
                // On the model's devices, as the loop loads it (ServerLoop: the draft goes where
                // the model went).
                dl.devices = s.load.devices;
                dl.backend = s.load.backend;
                ModelParams dp(dl, static_cast<int>(s.draftModel->layerCount));
                dp.get().no_alloc = true;
                dp.get().load_mode = LLAMA_LOAD_MODE_NONE;
                dp.get().use_extra_bufts = mp.use_extra_bufts;
                draftModel.reset(llama_model_load_from_file(s.context.speculation.draftModel.c_str(), dp.get()));
                if (!draftModel)
                    return Error{ErrorCode::LoadFailed, "llama.cpp's dry run could not load the draft model " +
                                                            s.context.speculation.draftModel + ": " + capture.lastError()};
            }
            llama_context_params dc = internal::loopDraftContextParams(s.context, slots, llama_n_ctx(ctx.get()), mtp);
            dc.ctx_other = ctx.get();
            draftCtx.reset(llama_init_from_model(drafting ? draftModel.get() : model.get(), dc));
            if (!draftCtx)
                return Error{ErrorCode::ContextFailed,
                             "llama.cpp's dry run could not create the draft context: " + capture.lastError()};
        }
        MemoryPlan plan = measuredFromLlama(model.get(), ctx.get(), analyticPlan(*info, s, t), false,
                                            {draftModel.get(), draftCtx.get()});
        internal::addProjector(plan, s); // llama.cpp's own dry run of it (projectorMemory) is already exact
        return plan;
    });
}

MemoryPlan measuredPlan(const ChatSession &session, const MemoryPlan &shape)
{
    const internal::ServerLoop &loop = internal::Access::loop(session);
    return measuredFromLlama(internal::llamaModel(*session.model()), internal::llamaContext(session), shape, true,
                             {loop.draftModel(), loop.draftContext()});
}

// A header read (I/O): here, beside the other plans that read files, not in the arithmetic of planner.cpp.
Result<std::shared_ptr<const ModelInfo>> draftModelInfo(const SpeculationSettings &speculation)
{
    if (speculation.draftModel.empty())
        return std::shared_ptr<const ModelInfo>();
    auto info = inspectModel(speculation.draftModel);
    if (!info)
    {
        const std::string &why = info.error().detail;
        const bool named = why.find(speculation.draftModel) != std::string::npos;
        return Error{info.error().code, "the draft model" + (named ? "" : " " + speculation.draftModel) + ": " + why};
    }
    return std::shared_ptr<const ModelInfo>(std::make_shared<const ModelInfo>(std::move(*info)));
}

double planError(const MemoryPlan &a, const MemoryPlan &e)
{
    auto core = [](const MemoryPlan &p) {
        uint64_t s = p.ram.use.weights() + p.ram.use.kv() + p.ram.use.compute + p.ram.use.draft();
        for (const auto &g : p.gpus)
            s += g.use.weights() + g.use.kv() + g.use.compute + g.use.draft();
        return double(s);
    };
    const double ev = core(e);
    return ev > 0 ? std::fabs(core(a) - ev) / ev : 0.0;
}

} // namespace shoehorn
