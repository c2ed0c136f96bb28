// A tiny vision projector (mmproj) that llama.cpp's libmtmd loads: the Qwen3-VL merger
// ("qwen3vl_merger"), which Qwen3-VL and Qwen3.5's own mmproj files use. Random weights, real
// structure: patch embedding (two frames, as the temporal merge expects), learned position
// embedding, a few ViT blocks with fused QKV, then the 2x2 spatial merger MLP whose output
// width must equal the text model's embedding width.
#include "fixturesinternal.h"

#include <filesystem>
#include <memory>

namespace shoehorn::fixtures {

using namespace detail;

ProjectorSpec tinyProjector()
{
    return ProjectorSpec{};
}

ProjectorSpec qwen35_35b_a3b_projector()
{
    ProjectorSpec p;
    p.name = "Qwen3.5-35B-A3B vision projector (shape fixture)";
    p.embd = 1152;
    p.heads = 16;
    p.ff = 4304;
    p.layers = 27;
    p.projectionDim = 2048;
    p.patch = 16;
    p.imageSize = 768; // a 48 x 48 learned position table
    p.type = "bf16";
    p.sparse = true;
    return p;
}

ProjectorSpec tinyProjectorMismatch()
{
    ProjectorSpec p;
    p.name = "Shoehorn tiny projector for a 32-wide model";
    p.projectionDim = 32;
    return p;
}

namespace {

struct ProjTensor {
    std::string name;
    int64_t ne[4];
    int dims;
};

std::vector<ProjTensor> projectorTensors(const ProjectorSpec &p)
{
    const int64_t E = p.embd, F = p.ff, P = p.patch, side = p.imageSize / p.patch;
    std::vector<ProjTensor> t;
    t.push_back({"v.patch_embd.weight", {P, P, 3, E}, 4});
    t.push_back({"v.patch_embd.weight.1", {P, P, 3, E}, 4});
    t.push_back({"v.patch_embd.bias", {E, 1, 1, 1}, 1});
    t.push_back({"v.position_embd.weight", {E, side * side, 1, 1}, 2});
    for (uint32_t i = 0; i < p.layers; ++i) {
        const std::string b = "v.blk." + std::to_string(i) + ".";
        t.push_back({b + "ln1.weight", {E, 1, 1, 1}, 1});
        t.push_back({b + "ln1.bias", {E, 1, 1, 1}, 1});
        t.push_back({b + "attn_qkv.weight", {E, 3 * E, 1, 1}, 2});
        t.push_back({b + "attn_qkv.bias", {3 * E, 1, 1, 1}, 1});
        t.push_back({b + "attn_out.weight", {E, E, 1, 1}, 2});
        t.push_back({b + "attn_out.bias", {E, 1, 1, 1}, 1});
        t.push_back({b + "ln2.weight", {E, 1, 1, 1}, 1});
        t.push_back({b + "ln2.bias", {E, 1, 1, 1}, 1});
        t.push_back({b + "ffn_up.weight", {E, F, 1, 1}, 2});
        t.push_back({b + "ffn_up.bias", {F, 1, 1, 1}, 1});
        t.push_back({b + "ffn_down.weight", {F, E, 1, 1}, 2});
        t.push_back({b + "ffn_down.bias", {E, 1, 1, 1}, 1});
    }
    t.push_back({"mm.0.weight", {4 * E, 4 * E, 1, 1}, 2});
    t.push_back({"mm.0.bias", {4 * E, 1, 1, 1}, 1});
    t.push_back({"mm.2.weight", {4 * E, int64_t(p.projectionDim), 1, 1}, 2});
    t.push_back({"mm.2.bias", {int64_t(p.projectionDim), 1, 1, 1}, 1});
    return t;
}

void setProjectorKeys(gguf_context *g, const ProjectorSpec &p)
{
    gguf_set_val_str(g, "general.architecture", "clip");
    gguf_set_val_str(g, "general.name", p.name.c_str());
    gguf_set_val_u32(g, "general.file_type", p.type == "f32" ? 0 : p.type == "bf16" ? 32 : 1);
    gguf_set_val_str(g, "clip.projector_type", "qwen3vl_merger");
    gguf_set_val_bool(g, "clip.has_vision_encoder", true);
    gguf_set_val_bool(g, "clip.use_gelu", true);
    gguf_set_val_u32(g, "clip.vision.embedding_length", p.embd);
    gguf_set_val_u32(g, "clip.vision.feed_forward_length", p.ff);
    gguf_set_val_u32(g, "clip.vision.block_count", p.layers);
    gguf_set_val_u32(g, "clip.vision.projection_dim", p.projectionDim);
    gguf_set_val_u32(g, "clip.vision.attention.head_count", p.heads);
    gguf_set_val_f32(g, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
    gguf_set_val_u32(g, "clip.vision.image_size", p.imageSize);
    gguf_set_val_u32(g, "clip.vision.patch_size", p.patch);
    gguf_set_val_u32(g, "clip.vision.spatial_merge_size", 2);
    const float mean[3] = {0.5f, 0.5f, 0.5f}, stdev[3] = {0.5f, 0.5f, 0.5f};
    gguf_set_arr_data(g, "clip.vision.image_mean", GGUF_TYPE_FLOAT32, mean, 3);
    gguf_set_arr_data(g, "clip.vision.image_std", GGUF_TYPE_FLOAT32, stdev, 3);
}

} // namespace

std::string writeProjector(const ProjectorSpec &p, const std::string &path)
{
    if (p.imageSize % (p.patch * 2) != 0 || p.embd % p.heads != 0)
        return "the projector's image size must be a multiple of two patches, its width of its heads";
    std::unique_ptr<gguf_context, decltype(&gguf_free)> g(gguf_init_empty(), &gguf_free);
    setProjectorKeys(g.get(), p);
    const auto defs = projectorTensors(p);
    ggml_init_params ip{ggml_tensor_overhead() * (defs.size() + 8), nullptr, true};
    std::unique_ptr<ggml_context, decltype(&ggml_free)> meta(ggml_init(ip), &ggml_free);
    std::vector<ggml_tensor *> tensors;
    // Matrices in the file's precision (F16 or F32), as convert_hf_to_gguf writes mmproj-F16/F32;
    // biases, norms and the position table stay F32.
    const ggml_type matrix = p.type == "f32" ? GGML_TYPE_F32 : p.type == "bf16" ? GGML_TYPE_BF16 : GGML_TYPE_F16;
    for (const auto &d : defs) {
        const bool big = d.dims >= 2 && d.name != "v.position_embd.weight";
        // The patch convolution stays F16 in BF16 files, as convert_hf_to_gguf writes them:
        // ggml's CPU conv_2d has no BF16 kernel.
        const bool conv = d.name.starts_with("v.patch_embd.weight");
        const ggml_type type = !big                                                          ? GGML_TYPE_F32
                               : conv && matrix == GGML_TYPE_BF16 && !p.bf16Convolution ? GGML_TYPE_F16
                                                                                       : matrix;
        ggml_tensor *t = ggml_new_tensor(meta.get(), type, d.dims, d.ne);
        ggml_set_name(t, d.name.c_str());
        tensors.push_back(t);
        gguf_add_tensor(g.get(), t);
    }
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    const std::string tmp = path + ".part";
    if (p.sparse) {
        // The metadata, then a file of the full size with nothing written (a sparse file).
        if (!gguf_write_to_file(g.get(), tmp.c_str(), true))
            return "cannot write " + tmp + " (disk full?)";
        const int64_t last = int64_t(tensors.size()) - 1;
        const size_t align = gguf_get_alignment(g.get());
        size_t data = gguf_get_tensor_offset(g.get(), last) + gguf_get_tensor_size(g.get(), last);
        data = (data + align - 1) / align * align;
        std::filesystem::resize_file(tmp, gguf_get_meta_size(g.get()) + data, ec);
        if (ec)
            return "cannot size " + tmp + ": " + ec.message();
    } else {
        // gguf keeps pointers to the data until the file is written; a tiny projector is small.
        std::vector<std::vector<uint8_t>> data;
        for (ggml_tensor *t : tensors) {
            data.push_back(randomData(t, p.seed, 0.05f));
            gguf_set_tensor_data(g.get(), ggml_get_name(t), data.back().data());
        }
        if (!gguf_write_to_file(g.get(), tmp.c_str(), false))
            return "cannot write " + tmp + " (disk full?)";
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        return "cannot rename to " + path + ": " + ec.message();
    return {};
}

} // namespace shoehorn::fixtures
