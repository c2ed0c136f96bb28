#pragma once

#include "error.h"
#include "model.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace shoehorn {

// What a multimodal projector file (mmproj-*.gguf) says about itself, read without loading it.
struct ProjectorInfo {
    std::string path;
    std::string name;
    std::string projectorType;   // clip.projector_type, e.g. "qwen3vl_merger"
    std::string precision;       // "F32", "F16", "BF16", "Q8_0"...: the type of most of its bytes
    bool vision = false;
    bool audio = false;
    uint32_t outputEmbedding = 0; // width of what it feeds the text model (its n_embd must match)
    uint32_t imageSize = 0;
    uint32_t patchSize = 0;
    uint32_t visionEmbedding = 0; // the vision tower's own width
    uint32_t visionLayers = 0;
    uint32_t mergeSize = 1;       // clip.vision.spatial_merge_size (Qwen-VL mergers: 2)
    uint32_t minImageTokens = 0;  // what llama.cpp scales a picture up or down to (0: fixed size)
    uint32_t maxImageTokens = 0;
    uint64_t fileSize = 0;
    uint64_t tensorBytes = 0;
};

// Reads clip.* metadata and the tensor table. Never aborts on bad input.
Result<ProjectorInfo> inspectProjector(const std::string &path);

// Projector files beside a model (mmproj*.gguf in its folder), best precision first
// (F16, BF16, F32, then quantized), as llama.cpp's downloads ship them.
std::vector<std::string> findProjectors(const std::string &modelPath);

// True if the file name says it is a projector (mmproj*.gguf), not a model to list.
bool isProjectorFileName(const std::string &path);

// How many context tokens a width x height picture takes with this projector: llama.cpp's
// resizing for dynamic-resolution projectors (Qwen-VL mergers: within min/max tokens, sides in
// steps of patch x merge), a fixed count for fixed-size ones. From the metadata, before
// anything loads (Projector::imageTokens() counts exactly once it is loaded).
int estimateImageTokens(const ProjectorInfo &projector, int width, int height);

// ProjectorMismatch when the projector's output width is not the model's embedding width
// (llama.cpp would refuse it at load), or it has no vision encoder.
Error checkProjectorMatches(const ProjectorInfo &projector, const ModelInfo &model);

struct ProjectorSettings {
    bool offload = true; // on the GPU like llama.cpp (--no-mmproj-offload keeps it on the CPU)
    int threads = 0;     // 0: physical cores
};

// An image as the user gave it: the encoded file (PNG, JPEG, BMP, GIF, WebP...).
struct ImageData {
    std::string bytes;
};

struct ImageProbe {
    int width = 0;
    int height = 0;
};

// Limits on what an image may be before it is decoded: a 20000x20000 image would take 1.2 GB
// decoded, only to be shrunk to a few hundred tokens.
constexpr int kMaxImageSide = 16384;
constexpr int64_t kMaxImagePixels = 64ll * 1024 * 1024;
constexpr int64_t kMaxImageBytes = 64ll * 1024 * 1024;

// Reads only the header: ImageInvalid names what is wrong (not an image, unsupported format,
// too large) before anything is decoded.
Result<ImageProbe> probeImage(const std::string &bytes);
// Decodes the whole picture as llama.cpp will (then drops the pixels): ImageInvalid for a
// damaged or truncated file whose header looked fine. For attaching, so that a picture that
// would fail every later turn of a chat never gets into it.
Error checkImageDecodes(const std::string &bytes);

// What loading the projector takes: its weights and its worst-case compute buffer, from
// llama.cpp's own dry run (mtmd_get_memory_usage: reads the file's metadata, allocates nothing).
Result<uint64_t> projectorMemory(const std::string &path, bool offload);

// A loaded projector (libmtmd context) for one loaded model. One user at a time: the chat
// session that owns it (the API server loads its own).
class Projector
{
public:
    static Result<std::shared_ptr<Projector>> load(std::shared_ptr<Model> model, const std::string &path,
                                                   const ProjectorSettings &settings = {});
    ~Projector();
    Projector(const Projector &) = delete;
    Projector &operator=(const Projector &) = delete;

    const ProjectorInfo &info() const;
    const ProjectorSettings &settings() const;
    const std::shared_ptr<Model> &model() const;
    // The text that stands for one image in a prompt.
    static const char *marker();
    // The context tokens a width x height picture takes: llama.cpp's own preprocessing of a
    // placeholder image of that size (no pixels are made). -1 if libmtmd refuses it.
    int imageTokens(int width, int height) const;

private:
    friend struct internal::Access;
    struct Impl;
    Projector();
    std::unique_ptr<Impl> m_impl;
};

} // namespace shoehorn
