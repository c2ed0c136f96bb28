#include "model.h"
#include "backends.h"

#include "guarded.h"

#include "filepages.h"
#include "llamahandles.h"
#include "llamaparams.h"
#include "loadprogress.h"
#include "logcapture.h"

#include <llama-cpp.h>

#include <atomic>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

namespace shoehorn {

struct Model::Impl {
    llama_model_ptr model;
    ModelInfo info;
    LoadSettings settings;
};

namespace {
// With mmap, llama.cpp maps the file with MAP_POPULATE: the whole file is read inside mmap(),
// before its first progress report and without a way to cancel (a minute at 0 % for a 18 GB
// model). Reading the file first, here, puts it in the page cache with progress and Cancel;
// llama.cpp's populate then finds the pages there. This is the first part of the progress.
//
// Brings the files into the page cache in 64 MiB steps with readahead(2), which waits for the
// reads but copies nothing (pages already cached cost next to nothing); false when cancelled.
bool warmPageCache(const std::vector<std::string> &files, uint64_t total, internal::LoadProgress &progress)
{
    constexpr uint64_t kStep = 64ull << 20;
    uint64_t done = 0;
    for (const auto &path : files) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; // llama.cpp will say what is wrong with it
        const off_t size = ::lseek(fd, 0, SEEK_END);
        for (off_t at = 0; at < size; at += static_cast<off_t>(kStep)) {
            if (progress.cancelled()) {
                ::close(fd);
                return false;
            }
            ::readahead(fd, at, kStep);
            done += std::min<uint64_t>(kStep, static_cast<uint64_t>(size - at));
            progress.warmed(done, total);
        }
        ::close(fd);
    }
    return true;
}
} // namespace

bool looksLikeOutOfMemory(const std::string &log)
{
    for (const char *s : {"failed to allocate", "out of memory", "cudaMalloc failed", "unable to allocate",
                          "failed to create", "ErrorOutOfDeviceMemory", "OutOfMemory", "cannot allocate memory"}) {
        if (log.find(s) != std::string::npos)
            return true;
    }
    return false;
}

std::vector<std::string> Model::cpuMoePatterns(int layers)
{
    std::vector<std::string> out;
    for (int i = 0; i < layers; ++i)
        out.push_back("blk\\." + std::to_string(i) + "\\.ffn_(up|down|gate|gate_up)_(ch|)exps");
    return out;
}

Result<std::shared_ptr<Model>> Model::load(const std::string &path, const LoadSettings &settings,
                                           const ProgressFn &progress, const std::atomic<bool> *cancel)
{
    return internal::guarded(ErrorCode::LoadFailed, [&]() -> Result<std::shared_ptr<Model>> {
        auto info = inspectModel(path);
        if (!info)
            return info.error();
        if (settings.gpuLayers < -1 || settings.cpuMoeLayers < 0)
            return Error{ErrorCode::InvalidArgument, "negative layer count"};

        internal::initBackends();
        if (Error e = checkDevices(settings))
            return e;
        LogCapture capture;

        ModelParams params(settings, static_cast<int>(info->layerCount));
        llama_model_params &mp = params.get();
        const bool mmap = settings.loadMode != LoadMode::NoMmap;
        internal::LoadProgress pctx(progress, cancel, mmap);
        if (mmap) {
            if (!warmPageCache(info->files, info->fileSize, pctx))
                return Error{ErrorCode::Cancelled, "loading was cancelled"};
            pctx.watchMapping(info->fileSize);
        }
        mp.progress_callback = &internal::LoadProgress::callback;
        mp.progress_callback_user_data = &pctx;

        llama_model *raw = nullptr;
        if (info->files.size() > 1) {
            std::vector<const char *> paths;
            for (const auto &f : info->files)
                paths.push_back(f.c_str());
            raw = llama_model_load_from_splits(paths.data(), paths.size(), mp);
        } else {
            raw = llama_model_load_from_file(path.c_str(), mp);
        }
        if (!raw) {
            if (cancel && cancel->load())
                return Error{ErrorCode::Cancelled, "loading was cancelled"};
            const std::string log = capture.all();
            std::string why = capture.lastError();
            if (why.empty())
                why = "llama.cpp could not load the model";
            return Error{looksLikeOutOfMemory(log) ? ErrorCode::OutOfMemory : ErrorCode::LoadFailed, why};
        }

        // The file pages of weights llama.cpp copied (repacked, offloaded) are of no more use here.
        if (settings.loadMode == LoadMode::Mmap)
            internal::releaseCopiedFilePages(raw, info->files);
        auto model = std::shared_ptr<Model>(new Model());
        model->m_impl->model.reset(raw);
        model->m_impl->info = std::move(*info);
        model->m_impl->settings = settings;
        return model;
    });
}

extern std::atomic<int> g_liveModels; // diagnostics.h

Model::Model() : m_impl(std::make_unique<Impl>())
{
    ++g_liveModels;
}

Model::~Model()
{
    --g_liveModels;
}

const ModelInfo &Model::info() const
{
    return m_impl->info;
}

const LoadSettings &Model::settings() const
{
    return m_impl->settings;
}

std::string Model::description() const
{
    char buf[256];
    llama_model_desc(m_impl->model.get(), buf, sizeof buf);
    return buf;
}

llama_model *internal::Access::model(const Model &m)
{
    return m.m_impl->model.get();
}

} // namespace shoehorn
