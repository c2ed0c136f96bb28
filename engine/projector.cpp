#include "projector.h"

#include "devices.h"
#include "backends.h"

#include "guarded.h"

#include "gguffile.h"
#include "llamahandles.h"
#include "logcapture.h"
#include "settings.h"

#include <ggml.h>
#include <gguf.h>
#include <mtmd.h>
#include <server-common.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

namespace shoehorn {

extern std::atomic<int> g_liveProjectors; // diagnostics.h

namespace fs = std::filesystem;

struct Projector::Impl {
    std::shared_ptr<Model> model; // the projector feeds this model; it must outlive the context
    ProjectorInfo info;
    ProjectorSettings settings;
    std::unique_ptr<mtmd_context, decltype(&mtmd_free)> ctx{nullptr, &mtmd_free};
    // Stop while an image is encoded: the encoder's graph offers a stopping point every
    // kNodesPerCheck nodes (ggml's eval callback), where this flag is read. A node itself cannot
    // be stopped (a 2048x2048 picture's attention over 16384 patches is one node of 1.5 s on
    // 2 cores); with 24 nodes a stop could also wait for the rest of a layer. Each stopping
    // point is a synchronisation on a GPU, so not every node.
    std::atomic<const std::atomic<bool> *> cancel{nullptr};
    // The loop's: true while the picture being encoded is the desktop chat's (the encoder is
    // shared with the API's slots, whose pictures the chat's Stop must not end).
    std::atomic<const std::atomic<bool> *> gate{nullptr};
    uint32_t nodes = 0;
    static constexpr uint32_t kNodesPerCheck = 8;
    static bool evalCallback(ggml_tensor *t, bool ask, void *data);
};

bool Projector::Impl::evalCallback(ggml_tensor *, bool ask, void *data)
{
    auto *d = static_cast<Impl *>(data);
    if (ask)
        return ++d->nodes % kNodesPerCheck == 0; // "observe" this node: compute up to it, then ask below
    const std::atomic<bool> *flag = d->cancel.load(std::memory_order_relaxed);
    const std::atomic<bool> *gate = d->gate.load(std::memory_order_relaxed);
    if (gate && !gate->load(std::memory_order_relaxed))
        return true;
    return !(flag && flag->load(std::memory_order_relaxed)); // false ends the graph here
}

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// The type holding most of the bytes, upper case as in the file names (mmproj-F16.gguf).
std::string dominantType(const GgufFile &f)
{
    std::map<int, uint64_t> bytes;
    for (int64_t i = 0; i < f.tensorCount(); ++i) {
        const ggml_tensor *t = f.tensor(i);
        bytes[t->type] += ggml_nbytes(t);
    }
    int best = -1;
    uint64_t most = 0;
    for (const auto &[type, n] : bytes) {
        if (n > most) {
            most = n;
            best = type;
        }
    }
    if (best < 0)
        return {};
    std::string name = ggml_type_name(static_cast<ggml_type>(best));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return name;
}

int precisionRank(const std::string &path)
{
    const std::string n = lower(fs::path(path).filename().string());
    if (n.find("f16") != std::string::npos && n.find("bf16") == std::string::npos)
        return 0;
    if (n.find("bf16") != std::string::npos)
        return 1;
    if (n.find("f32") != std::string::npos)
        return 2;
    return 3;
}

const char *imageFormatName(const std::string &b)
{
    auto starts = [&](size_t at, const char *magic) {
        const size_t n = std::strlen(magic);
        return b.size() >= at + n && b.compare(at, n, magic) == 0;
    };
    if (starts(0, "RIFF") && starts(8, "WEBP"))
        return "WebP";
    if (starts(4, "ftypavif") || starts(4, "ftypavis"))
        return "AVIF";
    if (starts(4, "ftypheic") || starts(4, "ftypheix") || starts(4, "ftypmif1"))
        return "HEIC";
    if (starts(0, "II*\0") || starts(0, "MM\0*"))
        return "TIFF";
    if (starts(0, "<svg") || starts(0, "<?xml"))
        return "SVG";
    return nullptr;
}

} // namespace

bool isProjectorFileName(const std::string &path)
{
    const std::string n = lower(fs::path(path).filename().string());
    return n.starts_with("mmproj") && n.ends_with(".gguf");
}

std::vector<std::string> findProjectors(const std::string &modelPath)
{
    std::vector<std::string> out;
    std::error_code ec;
    const fs::path dir = fs::path(modelPath).parent_path().empty() ? fs::path(".") : fs::path(modelPath).parent_path();
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->is_regular_file(ec) && isProjectorFileName(it->path().string()))
            out.push_back(it->path().string());
    }
    std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
        const int ra = precisionRank(a), rb = precisionRank(b);
        return ra != rb ? ra < rb : a < b;
    });
    return out;
}

Result<ProjectorInfo> inspectProjector(const std::string &path)
{
    return internal::guarded(ErrorCode::Corrupt, [&]() -> Result<ProjectorInfo> {
        auto file = GgufFile::open(path);
        if (!file)
            return file.error();
        const GgufFile &f = **file;
        ProjectorInfo info;
        info.path = path;
        info.fileSize = f.fileSize();
        if (f.string("general.architecture").value_or("") != "clip")
            return Error{ErrorCode::ProjectorMismatch,
                         "the file is not a projector (general.architecture is \"" +
                             f.string("general.architecture").value_or("") + "\", not \"clip\")"};
        info.name = f.string("general.name").value_or("");
        info.vision = f.uint("clip.has_vision_encoder").value_or(0) != 0;
        info.audio = f.uint("clip.has_audio_encoder").value_or(0) != 0;
        info.projectorType = f.string("clip.projector_type").value_or(f.string("clip.vision.projector_type").value_or(""));
        info.outputEmbedding = static_cast<uint32_t>(f.uint("clip.vision.projection_dim").value_or(0));
        info.imageSize = static_cast<uint32_t>(f.uint("clip.vision.image_size").value_or(0));
        info.patchSize = static_cast<uint32_t>(f.uint("clip.vision.patch_size").value_or(0));
        info.visionEmbedding = static_cast<uint32_t>(f.uint("clip.vision.embedding_length").value_or(0));
        info.visionLayers = static_cast<uint32_t>(f.uint("clip.vision.block_count").value_or(0));
        for (int64_t i = 0; i < f.tensorCount(); ++i)
            info.tensorBytes += ggml_nbytes(f.tensor(i));
        info.precision = dominantType(f);
        const bool qwenMerger = info.projectorType == "qwen2vl_merger" || info.projectorType == "qwen2.5vl_merger" ||
                                info.projectorType == "qwen3vl_merger";
        info.mergeSize = static_cast<uint32_t>(f.uint("clip.vision.spatial_merge_size").value_or(qwenMerger ? 2 : 1));
        if (qwenMerger && info.patchSize > 0 && info.mergeSize > 0) {
            // llama.cpp's limits for these (clip.cpp: set_limit_image_tokens(8, 4096)), unless the
            // file gives its own in pixels.
            const uint64_t area = uint64_t(info.patchSize) * info.patchSize * info.mergeSize * info.mergeSize;
            info.minImageTokens = static_cast<uint32_t>(f.uint("clip.vision.image_min_pixels").value_or(8 * area) / area);
            info.maxImageTokens = static_cast<uint32_t>(f.uint("clip.vision.image_max_pixels").value_or(4096 * area) / area);
        }
        // Qwen3-VL's deepstack layers widen what the projector emits, like the text model's input.
        if (info.projectorType == "qwen3vl_merger") {
            uint32_t deepstack = 0;
            for (int64_t i = 0; i < f.tensorCount(); ++i) {
                const std::string n = ggml_get_name(f.tensor(i));
                if (n.find("deepstack") != std::string::npos && n.ends_with("fc2.weight"))
                    ++deepstack;
            }
            info.outputEmbedding *= 1 + deepstack;
        }
        return info;
    });
}

int estimateImageTokens(const ProjectorInfo &p, int width, int height)
{
    if (width <= 0 || height <= 0 || p.patchSize == 0)
        return 0;
    const int align = int(p.patchSize * std::max(1u, p.mergeSize));
    if (p.maxImageTokens == 0) { // a fixed-size projector: the picture is scaled to image_size
        const int side = int(p.imageSize / p.patchSize / std::max(1u, p.mergeSize));
        return side * side;
    }
    // llama.cpp's calc_size_preserved_ratio ("smart resize"), as mtmd-image.cpp does it.
    const double minPixels = double(p.minImageTokens) * align * align;
    const double maxPixels = double(p.maxImageTokens) * align * align;
    auto roundTo = [align](double x) { return int(std::round(x / align)) * align; };
    auto ceilTo = [align](double x) { return int(std::ceil(x / align)) * align; };
    auto floorTo = [align](double x) { return int(std::floor(x / align)) * align; };
    int w = std::max(align, roundTo(width)), h = std::max(align, roundTo(height));
    if (double(w) * h > maxPixels) {
        const double beta = std::sqrt(double(height) * width / maxPixels);
        h = std::max(align, floorTo(height / beta));
        w = std::max(align, floorTo(width / beta));
    } else if (double(w) * h < minPixels) {
        const double beta = std::sqrt(minPixels / (double(height) * width));
        h = ceilTo(height * beta);
        w = ceilTo(width * beta);
    }
    return (w / align) * (h / align);
}

Error checkProjectorMatches(const ProjectorInfo &p, const ModelInfo &m)
{
    const std::string file = fs::path(p.path).filename().string();
    if (!p.vision)
        return Error{ErrorCode::ProjectorMismatch, file + " has no vision encoder (clip.has_vision_encoder)"};
    // Qwen-VL mergers hand over image tokens with row and column positions, which only a text
    // model with M-RoPE reads (Qwen2-VL, Qwen3-VL, Qwen3.5); elsewhere they would be garbage.
    const bool qwenMerger = p.projectorType == "qwen2vl_merger" || p.projectorType == "qwen2.5vl_merger" ||
                            p.projectorType == "qwen3vl_merger";
    if (qwenMerger && !m.multiAxisRope)
        return Error{ErrorCode::ProjectorMismatch,
                     file + " is a " + p.projectorType + " projector, made for a Qwen-VL or Qwen3.5 model with "
                     "M-RoPE; " + fs::path(m.path).filename().string() + " (" + m.architecture + ") has none"};
    if (p.outputEmbedding != 0 && m.embeddingSize != 0 && p.outputEmbedding != m.embeddingSize)
        return Error{ErrorCode::ProjectorMismatch,
                     file + " feeds embeddings of width " + std::to_string(p.outputEmbedding) + " (projector type " +
                         p.projectorType + "), but " + fs::path(m.path).filename().string() + " has width " +
                         std::to_string(m.embeddingSize)};
    return {};
}

Result<ImageProbe> probeImage(const std::string &bytes)
{
    return internal::guarded(ErrorCode::ImageInvalid, [&]() -> Result<ImageProbe> {
        if (bytes.empty())
            return Error{ErrorCode::ImageInvalid, "the image file is empty"};
        if (static_cast<int64_t>(bytes.size()) > kMaxImageBytes)
            return Error{ErrorCode::ImageInvalid, "the image file is " + formatBytes(bytes.size()) + "; at most " +
                                                      formatBytes(static_cast<uint64_t>(kMaxImageBytes)) + " are read"};
        int w = 0, h = 0, channels = 0;
        const auto *data = reinterpret_cast<const stbi_uc *>(bytes.data());
        if (!stbi_info_from_memory(data, static_cast<int>(bytes.size()), &w, &h, &channels)) {
            // stb_image refuses images over 1 GiB of pixels in the header already; say how big.
            const bool png = bytes.size() >= 24 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0;
            if (png) {
                auto be32 = [&](size_t at) {
                    uint32_t v = 0;
                    for (size_t i = 0; i < 4; ++i)
                        v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
                    return v;
                };
                w = static_cast<int>(std::min<uint32_t>(be32(16), 1u << 30));
                h = static_cast<int>(std::min<uint32_t>(be32(20), 1u << 30));
            }
            const char *reason = stbi_failure_reason();
            if ((png && (w > kMaxImageSide || h > kMaxImageSide)) || (reason && std::strcmp(reason, "too large") == 0))
                return Error{ErrorCode::ImageInvalid,
                             (png ? "the image is " + std::to_string(w) + "x" + std::to_string(h) + " pixels"
                                  : std::string("the image is too large to decode")) +
                                 "; at most " + std::to_string(kMaxImageSide) + " per side and 64 megapixels are accepted"};
            if (const char *format = imageFormatName(bytes))
                return Error{ErrorCode::ImageInvalid, std::string(format) +
                                                          " images are not supported; use PNG, JPEG, BMP or GIF"};
            return Error{ErrorCode::ImageInvalid, "the file is not an image in a supported format (PNG, JPEG, BMP, GIF)"};
        }
        if (w <= 0 || h <= 0)
            return Error{ErrorCode::ImageInvalid, "the image has no pixels"};
        if (w > kMaxImageSide || h > kMaxImageSide || int64_t(w) * h > kMaxImagePixels)
            return Error{ErrorCode::ImageInvalid, "the image is " + std::to_string(w) + "x" + std::to_string(h) +
                                                      " pixels; at most " + std::to_string(kMaxImageSide) +
                                                      " per side and 64 megapixels are accepted"};
        return ImageProbe{w, h};
    });
}

Result<uint64_t> projectorMemory(const std::string &path, bool offload)
{
    auto info = inspectProjector(path);
    if (!info)
        return info.error();
    internal::initBackends(offload); // the file check's helper plans it on the CPU: no GPU driver
    std::shared_lock registry(internal::deviceRegistry()); // from a pool thread: no device joins meanwhile
    LogCapture capture;
    mtmd_context_params p = mtmd_context_params_default();
    p.use_gpu = offload;
    p.warmup = true;
    std::map<ggml_backend_dev_t, size_t> use;
    try {
        use = mtmd_get_memory_usage(path.c_str(), p);
    } catch (const std::exception &e) {
        return Error{ErrorCode::ProjectorFailed, e.what()};
    }
    uint64_t total = 0;
    for (const auto &[dev, bytes] : use)
        total += bytes;
    if (total == 0)
        return Error{ErrorCode::ProjectorFailed,
                     capture.lastError().empty() ? "llama.cpp's dry run of the projector failed" : capture.lastError()};
    return total;
}

Error checkImageDecodes(const std::string &bytes)
{
    return internal::guarded(ErrorCode::ImageInvalid, [&]() -> Error {
        auto probe = probeImage(bytes);
        if (!probe)
            return probe.error();
        int w = 0, h = 0, channels = 0;
        stbi_uc *pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc *>(bytes.data()), static_cast<int>(bytes.size()),
                                                &w, &h, &channels, 3);
        if (!pixels) {
            const char *why = stbi_failure_reason();
            return Error{ErrorCode::ImageInvalid,
                         std::string("the image is damaged or cut short") + (why ? std::string(" (") + why + ")" : "")};
        }
        stbi_image_free(pixels);
        return {};
    });
}

Result<std::shared_ptr<Projector>> Projector::load(std::shared_ptr<Model> model, const std::string &path,
                                                   const ProjectorSettings &settings)
{
    return internal::guarded(ErrorCode::ProjectorFailed, [&]() -> Result<std::shared_ptr<Projector>> {
        if (!model)
            return Error{ErrorCode::NoModel, "no model loaded"};
        auto info = inspectProjector(path);
        if (!info)
            return info.error();
        if (Error e = checkProjectorMatches(*info, model->info()))
            return e;
        LogCapture capture;
        mtmd_context_params p = mtmd_context_params_default();
        p.use_gpu = settings.offload;
        // On the model's first GPU when its devices were chosen (a backend, --device): mtmd's own
        // choice would be the first backend's device (CUDA's of a card Vulkan runs the model on).
        if (auto devices = internal::modelDeviceHandles(model->settings()); devices && p.use_gpu) {
            p.device = devices->front();
            p.use_gpu = p.device != nullptr;
        }
        p.print_timings = false;
        p.n_threads = settings.threads > 0 ? settings.threads : std::max(1, physicalCoreCount());
        p.warmup = true; // allocates the compute buffer now: an OOM shows at load, not at the first image
        p.media_marker = marker();
        auto proj = std::shared_ptr<Projector>(new Projector());
        p.cb_eval = &Impl::evalCallback;
        p.cb_eval_user_data = proj->m_impl.get();
        mtmd_context *ctx = nullptr;
        try {
            ctx = mtmd_init_from_file(path.c_str(), internal::llamaModel(*model), p);
        } catch (const std::exception &e) {
            return Error{ErrorCode::ProjectorFailed, e.what()};
        }
        if (!ctx) {
            const std::string log = capture.all();
            const std::string why = capture.lastError().empty() ? "libmtmd could not load " + path : capture.lastError();
            if (log.find("mismatch between text model") != std::string::npos)
                return Error{ErrorCode::ProjectorMismatch, why};
            return Error{looksLikeOutOfMemory(log) ? ErrorCode::OutOfMemory : ErrorCode::ProjectorFailed, why};
        }
        if (!mtmd_support_vision(ctx)) {
            mtmd_free(ctx);
            return Error{ErrorCode::ProjectorMismatch, fs::path(path).filename().string() + " cannot read images"};
        }
        proj->m_impl->ctx.reset(ctx);
        ++g_liveProjectors;
        proj->m_impl->model = std::move(model);
        proj->m_impl->info = std::move(*info);
        proj->m_impl->settings = settings;
        return proj;
    });
}

Projector::Projector() : m_impl(std::make_unique<Impl>()) {}

Projector::~Projector()
{
    if (m_impl->ctx)
        --g_liveProjectors;
}

const ProjectorInfo &Projector::info() const
{
    return m_impl->info;
}

const ProjectorSettings &Projector::settings() const
{
    return m_impl->settings;
}

const std::shared_ptr<Model> &Projector::model() const
{
    return m_impl->model;
}

int Projector::imageTokens(int width, int height) const
{
    if (width <= 0 || height <= 0)
        return -1;
    mtmd_context *ctx = m_impl->ctx.get();
    std::unique_ptr<mtmd_bitmap, decltype(&mtmd_bitmap_free)> bitmap(
        mtmd_bitmap_init(uint32_t(width), uint32_t(height), nullptr), &mtmd_bitmap_free); // a placeholder
    std::unique_ptr<mtmd_input_chunks, decltype(&mtmd_input_chunks_free)> chunks(mtmd_input_chunks_init(),
                                                                                  &mtmd_input_chunks_free);
    const std::string text = marker();
    const mtmd_input_text in{text.c_str(), text.size(), false, true};
    const mtmd_bitmap *raw = bitmap.get();
    if (mtmd_tokenize(ctx, chunks.get(), &in, &raw, 1) != 0)
        return -1;
    int tokens = 0;
    for (size_t i = 0; i < mtmd_input_chunks_size(chunks.get()); ++i) {
        const mtmd_input_chunk *chunk = mtmd_input_chunks_get(chunks.get(), i);
        if (mtmd_input_chunk_get_type(chunk) == MTMD_INPUT_CHUNK_TYPE_IMAGE)
            tokens += int(mtmd_input_chunk_get_n_tokens(chunk));
    }
    return tokens;
}

const char *Projector::marker()
{
    // llama-server's own marker, random per process (a user who types mtmd's default marker
    // into a message must not make it an image): the server loop shares this projector, and the
    // local API's image parts become this marker too.
    return get_media_marker();
}

mtmd_context *internal::Access::projector(const Projector &p)
{
    return p.m_impl->ctx.get();
}

void internal::Access::setProjectorCancel(const Projector &p, const std::atomic<bool> *cancel,
                                          const std::atomic<bool> *gate)
{
    // The encoder reads the flag, then the gate: taken away flag first, given gate first, so that
    // it never sees a flag without its gate (which would stop any picture).
    if (!cancel) {
        p.m_impl->cancel.store(nullptr);
        p.m_impl->gate.store(gate);
        return;
    }
    p.m_impl->gate.store(gate);
    p.m_impl->cancel.store(cancel);
}

} // namespace shoehorn
