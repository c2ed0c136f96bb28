// Writes a Spec as a GGUF file (or the parts of a split one).
#include "fixturesinternal.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace shoehorn::fixtures {

using namespace detail;

namespace {

using GgufPtr = std::unique_ptr<gguf_context, decltype(&gguf_free)>;

int ftypeOf(const std::string &quant)
{
    if (quant == "f32") return 0;
    if (quant == "f16") return 1;
    if (quant == "q8_0") return 7;
    return 15; // Q4_K_M
}

// Adds `tensors` to `g`, writes metadata, then data (or just the size, for sparse files).
std::string writeFile(const Spec &s, gguf_context *g, const std::vector<ggml_tensor *> &tensors,
                      const std::string &path, const std::vector<float> *outputRows)
{
    for (ggml_tensor *t : tensors)
        gguf_add_tensor(g, t);
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty())
        std::filesystem::create_directories(parent, ec);
    const std::string tmp = path + ".part";
    if (!gguf_write_to_file(g, tmp.c_str(), true))
        return "cannot write " + tmp;
    const size_t metaSize = gguf_get_meta_size(g);
    const size_t align = gguf_get_alignment(g);
    size_t dataSize = 0;
    if (!tensors.empty()) {
        const int64_t last = static_cast<int64_t>(tensors.size()) - 1;
        dataSize = gguf_get_tensor_offset(g, last) + gguf_get_tensor_size(g, last);
        dataSize = (dataSize + align - 1) / align * align;
    }
    if (s.fill != Fill::Sparse) {
        std::unique_ptr<FILE, decltype(&fclose)> f(std::fopen(tmp.c_str(), "r+b"), &fclose);
        if (!f)
            return "cannot open " + tmp;
        for (size_t i = 0; i < tensors.size(); ++i) {
            const bool isOutput = std::strcmp(ggml_get_name(tensors[i]), "output.weight") == 0;
            const bool quantized = ggml_is_quantized(tensors[i]->type);
            const auto data = s.fill == Fill::Fast && quantized
                                  ? fastRandomData(tensors[i], s.seed)
                                  : randomData(tensors[i], s.seed, s.weightScale, isOutput ? outputRows : nullptr);
            const long off = static_cast<long>(metaSize + gguf_get_tensor_offset(g, static_cast<int64_t>(i)));
            if (std::fseek(f.get(), off, SEEK_SET) != 0 ||
                std::fwrite(data.data(), 1, data.size(), f.get()) != data.size())
                return "write failed (disk full?) at " + tmp;
        }
        if (std::fflush(f.get()) != 0)
            return "write failed (disk full?) at " + tmp;
    }
    std::filesystem::resize_file(tmp, metaSize + dataSize, ec);
    if (ec)
        return "cannot size " + tmp + ": " + ec.message();
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        return "cannot rename to " + path + ": " + ec.message();
    return {};
}

// general.*: architecture, name, sampling defaults, file type.
void setGeneral(gguf_context *g, const Spec &s)
{
    gguf_set_val_str(g, "general.architecture", s.arch.c_str());
    gguf_set_val_str(g, "general.name", s.name.c_str());
    if (s.alignmentKey)
        gguf_set_val_u32(g, "general.alignment", 32);
    if (s.samplingDefaults) {
        gguf_set_val_f32(g, "general.sampling.temp", 0.6f);
        gguf_set_val_f32(g, "general.sampling.top_p", 0.95f);
        gguf_set_val_f32(g, "general.sampling.min_p", 0.0f);
        gguf_set_val_i32(g, "general.sampling.top_k", 20);
    }
    gguf_set_val_u32(g, "general.file_type", static_cast<uint32_t>(ftypeOf(s.quant)));
    gguf_set_val_u32(g, "general.quantization_version", 2);
}

// ARCH.*: sizes, attention, RoPE, sliding window, SSM and experts.
void setHyperparameters(gguf_context *g, const Spec &s, uint32_t nVocab)
{
    const std::string a = s.arch + ".";
    gguf_set_val_u32(g, (a + "context_length").c_str(), s.contextLength);
    gguf_set_val_u32(g, (a + "embedding_length").c_str(), s.embd);
    gguf_set_val_u32(g, (a + "block_count").c_str(), s.layers + s.mtpLayers); // MTP blocks count too
    if (s.mtpLayers > 0)
        gguf_set_val_u32(g, (a + "nextn_predict_layers").c_str(), s.mtpLayers);
    gguf_set_val_u32(g, (a + "feed_forward_length").c_str(), s.ff);
    gguf_set_val_u32(g, (a + "attention.head_count").c_str(), s.heads);
    gguf_set_val_u32(g, (a + "attention.head_count_kv").c_str(), s.headsKv);
    gguf_set_val_u32(g, (a + "attention.key_length").c_str(), s.headDim);
    gguf_set_val_u32(g, (a + "attention.value_length").c_str(), s.headDim);
    gguf_set_val_u32(g, (a + "rope.dimension_count").c_str(), s.ropeDims ? s.ropeDims : s.headDim);
    gguf_set_val_f32(g, (a + "rope.freq_base").c_str(), 1000000.0f);
    gguf_set_val_f32(g, (a + "attention.layer_norm_rms_epsilon").c_str(), 1e-6f);
    gguf_set_val_u32(g, (a + "vocab_size").c_str(), nVocab);
    if (s.slidingWindow > 0)
        gguf_set_val_u32(g, (a + "attention.sliding_window").c_str(), s.slidingWindow);
    if (s.arch == "qwen35moe") {
        gguf_set_val_u32(g, (a + "ssm.conv_kernel").c_str(), s.ssmConvKernel);
        gguf_set_val_u32(g, (a + "ssm.inner_size").c_str(), s.ssmStateSize * s.ssmTimeStepRank);
        gguf_set_val_u32(g, (a + "ssm.state_size").c_str(), s.ssmStateSize);
        gguf_set_val_u32(g, (a + "ssm.time_step_rank").c_str(), s.ssmTimeStepRank);
        gguf_set_val_u32(g, (a + "ssm.group_count").c_str(), s.ssmGroupCount);
        gguf_set_val_u32(g, (a + "full_attention_interval").c_str(), s.fullAttentionInterval);
        const int32_t sections[4] = {int32_t(s.ropeDims / 6), int32_t(s.ropeDims / 6), int32_t(s.ropeDims / 2 - 2 * (s.ropeDims / 6)), 0};
        gguf_set_arr_data(g, (a + "rope.dimension_sections").c_str(), GGUF_TYPE_INT32, sections, 4);
    }
    if (s.sharedExpertFf > 0)
        gguf_set_val_u32(g, (a + "expert_shared_feed_forward_length").c_str(), s.sharedExpertFf);
    if (s.experts > 0) {
        gguf_set_val_u32(g, (a + "expert_count").c_str(), s.experts);
        gguf_set_val_u32(g, (a + "expert_used_count").c_str(), s.expertsUsed);
        gguf_set_val_u32(g, (a + "expert_feed_forward_length").c_str(), s.expertFf);
    }
}

// llama.cpp's split layout: the first part has all metadata, every part has split.*
// keys and a contiguous share of the tensors.
std::string writeSplits(const Spec &s, gguf_context *g, const std::vector<ggml_tensor *> &tensors,
                        const std::string &path, const std::vector<float> &outputRows)
{
    const std::string prefix = path.size() > 5 && path.ends_with(".gguf") ? path.substr(0, path.size() - 5) : path;
    const size_t per = (tensors.size() + s.splits - 1) / s.splits;
    for (uint32_t k = 0; k < s.splits; ++k) {
        GgufPtr part(gguf_init_empty(), &gguf_free);
        if (k == 0)
            gguf_set_kv(part.get(), g);
        gguf_set_val_u16(part.get(), "split.no", static_cast<uint16_t>(k));
        gguf_set_val_u16(part.get(), "split.count", static_cast<uint16_t>(s.splits));
        gguf_set_val_i32(part.get(), "split.tensors.count", static_cast<int32_t>(tensors.size()));
        const size_t from = std::min(tensors.size(), k * per), to = std::min(tensors.size(), from + per);
        std::vector<ggml_tensor *> share(tensors.begin() + static_cast<std::ptrdiff_t>(from),
                                         tensors.begin() + static_cast<std::ptrdiff_t>(to));
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, "-%05u-of-%05u.gguf", k + 1, s.splits);
        const std::string err = writeFile(s, part.get(), share, prefix + suffix, &outputRows);
        if (!err.empty())
            return err;
    }
    return {};
}

} // namespace

std::string write(const Spec &s, const std::string &path)
{
    if (s.arch != "llama" && s.arch != "qwen3moe" && s.arch != "qwen35moe" && s.arch != "gemma3")
        return "unsupported architecture " + s.arch;
    if (s.arch == "qwen3moe" && (s.experts == 0 || s.expertsUsed == 0))
        return "qwen3moe needs experts";
    if (s.mtpLayers > 0 && (s.arch != "qwen35moe" || s.experts == 0))
        return "MTP layers are written for qwen35moe (with experts) only";

    const Vocab vocab = makeVocab(s.vocab, s.controlHighBytes);
    const uint32_t nVocab = static_cast<uint32_t>(vocab.tokens.size());
    GgufPtr g(gguf_init_empty(), &gguf_free);
    setGeneral(g.get(), s);
    setHyperparameters(g.get(), s, nVocab);
    setTokenizer(g.get(), s, vocab);

    const auto defs = tensorDefs(s, nVocab);
    ggml_init_params ip{ggml_tensor_overhead() * (defs.size() + 8), nullptr, true};
    std::unique_ptr<ggml_context, decltype(&ggml_free)> meta(ggml_init(ip), &ggml_free);
    const std::vector<ggml_tensor *> tensors = makeTensors(meta.get(), s, defs);
    const std::vector<float> outputRows = outputRowScales(vocab);

    if (s.splits <= 1)
        return writeFile(s, g.get(), tensors, path, &outputRows);
    return writeSplits(s, g.get(), tensors, path, outputRows);
}

} // namespace shoehorn::fixtures
