#include "modelreader.h"

#include <ggml.h>
#include <gguf.h>

#include <algorithm>

namespace shoehorn::internal {

namespace {

constexpr uint32_t kMaxSane = 1u << 24; // hyperparameters beyond this are a broken file

TensorRole classify(const std::string &name, int layer)
{
    if (layer < 0) {
        if (name.rfind("token_embd", 0) == 0 || name.rfind("tok_embd", 0) == 0 ||
            name.rfind("per_layer_token_embd", 0) == 0)
            return TensorRole::Embedding;
        if (name.rfind("output", 0) == 0)
            return TensorRole::Output;
        return TensorRole::Other;
    }
    if (name.find("_exps.") != std::string::npos || name.find("_chexps.") != std::string::npos)
        return TensorRole::Expert;
    if (name.find(".ssm_") != std::string::npos || name.find(".time_mix") != std::string::npos ||
        name.find(".shortconv") != std::string::npos)
        return TensorRole::Recurrent;
    if (name.find(".ffn_") != std::string::npos || name.find(".exp_probs") != std::string::npos)
        return TensorRole::DenseFfn;
    return TensorRole::Attention; // attn_*, norms and whatever else belongs to the layer's mixer
}

int layerOf(const std::string &name)
{
    if (name.rfind("blk.", 0) != 0)
        return -1;
    int v = 0;
    size_t i = 4;
    if (i >= name.size() || name[i] < '0' || name[i] > '9')
        return -1;
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && v < 1000000; ++i)
        v = v * 10 + (name[i] - '0');
    return v;
}

uint32_t clampU32(std::optional<uint64_t> v)
{
    if (!v)
        return 0;
    return *v > kMaxSane ? kMaxSane + 1 : static_cast<uint32_t>(*v);
}

TensorInfo describeTensor(const ggml_tensor *t, int split)
{
    TensorInfo ti;
    ti.name = ggml_get_name(t);
    ti.typeId = static_cast<int>(t->type);
    ti.type = ggml_type_name(t->type);
    for (int d = 0; d < 4; ++d)
        ti.shape[d] = t->ne[d];
    ti.bytes = ggml_nbytes(t);
    ti.elements = static_cast<uint64_t>(ggml_nelements(t));
    ti.layer = layerOf(ti.name);
    ti.role = classify(ti.name, ti.layer);
    ti.split = split;
    return ti;
}

// Adds a tensor of layer `l` to that layer's bytes and flags.
void addToLayer(LayerInfo &l, const TensorInfo &ti)
{
    switch (ti.role) {
    case TensorRole::Expert: l.expertBytes += ti.bytes; break;
    case TensorRole::DenseFfn: l.denseFfnBytes += ti.bytes; break;
    case TensorRole::Recurrent:
        l.recurrentBytes += ti.bytes;
        l.hasRecurrent = true;
        break;
    default:
        l.attentionBytes += ti.bytes;
        // attn_k (or a fused attn_qkv) marks a layer with a KV cache. Hybrid models
        // also fuse q/k/v into attn_qkv in their recurrent layers: see finishLayers().
        if (ti.name.find(".attn_k.") != std::string::npos)
            l.hasAttention = l.hasSeparateK = true;
        else if (ti.name.find(".attn_qkv.") != std::string::npos)
            l.hasAttention = true;
        break;
    }
}

// Counts a tensor into the model's totals and into its layer, or the global tensors.
void addTensor(ModelInfo &info, const TensorInfo &ti)
{
    info.parameterCount += ti.elements;
    if (ti.role == TensorRole::Expert)
        info.expertParameterCount += ti.elements;
    info.tensorBytes += ti.bytes;
    if (ti.layer >= 0 && ti.layer < static_cast<int>(info.layerCount)) {
        addToLayer(info.layers[static_cast<size_t>(ti.layer)], ti);
    } else {
        info.globalBytes += ti.bytes;
        if (ti.role == TensorRole::Output)
            info.outputBytes += ti.bytes;
        else if (ti.role == TensorRole::Embedding)
            info.embeddingBytes += ti.bytes;
    }
}

} // namespace

Result<GgufParts> openParts(const std::vector<std::string> &files)
{
    GgufParts parts;
    for (size_t i = 0; i < files.size(); ++i) {
        auto f = GgufFile::open(files[i]);
        if (!f) {
            Error e = f.error();
            if (files.size() > 1 && i > 0 && e.code == ErrorCode::FileNotFound) {
                e.code = ErrorCode::SplitMissing;
                e.detail = "part " + std::to_string(i + 1) + " of " + std::to_string(files.size()) +
                           " is missing: " + files[i];
            } else if (files.size() > 1 && e.detail.find(files[i]) == std::string::npos) {
                e.detail = "part " + std::to_string(i + 1) + " of " + std::to_string(files.size()) + " (" + files[i] +
                           "): " + e.detail;
            }
            return e;
        }
        parts.push_back(*f);
    }
    const GgufFile &g = *parts.front();
    if (files.size() > 1) {
        const auto count = g.uint("split.count");
        if (count && *count != files.size())
            return Error{ErrorCode::Corrupt, "split.count says " + std::to_string(*count) + " parts, the name says " +
                                                 std::to_string(files.size())};
    }
    return parts;
}

std::optional<Error> readGeneral(const GgufFile &g, ModelInfo &info)
{
    const auto arch = g.string("general.architecture");
    if (!arch || arch->empty() || arch->size() > 64)
        return Error{ErrorCode::Corrupt, "general.architecture is missing"};
    info.architecture = *arch;
    info.name = g.string("general.name").value_or("");
    if (info.name.size() > 1024)
        info.name.resize(1024);
    if (auto ft = g.uint("general.file_type"))
        info.fileType = static_cast<int>(std::min<uint64_t>(*ft, 1u << 16));
    info.fileTypeName = fileTypeName(info.fileType);
    return std::nullopt;
}

void readHyperparameters(const GgufFile &g, ModelInfo &info)
{
    const std::string a = info.architecture + ".";
    info.layerCount = clampU32(g.uint(a + "block_count"));
    info.embeddingSize = clampU32(g.uint(a + "embedding_length"));
    info.feedForwardSize = clampU32(g.uint(a + "feed_forward_length"));
    info.headCount = clampU32(g.uint(a + "attention.head_count"));
    info.headCountKv = clampU32(g.uint(a + "attention.head_count_kv"));
    if (g.arrayLength(a + "attention.head_count_kv") > 0)
        info.headCountKvPerLayer = g.intArray(a + "attention.head_count_kv");
    if (info.headCountKv == 0)
        info.headCountKv = info.headCount;
    info.headSizeK = clampU32(g.uint(a + "attention.key_length"));
    info.headSizeV = clampU32(g.uint(a + "attention.value_length"));
    if (info.headSizeK == 0 && info.headCount > 0)
        info.headSizeK = info.embeddingSize / info.headCount;
    if (info.headSizeV == 0)
        info.headSizeV = info.headSizeK;
    info.contextLength = clampU32(g.uint(a + "context_length"));
    info.vocabSize = clampU32(g.uint(a + "vocab_size"));
    if (info.vocabSize == 0)
        info.vocabSize = static_cast<uint32_t>(std::min<size_t>(g.arrayLength("tokenizer.ggml.tokens"), kMaxSane));
    info.expertCount = clampU32(g.uint(a + "expert_count"));
    info.expertUsedCount = clampU32(g.uint(a + "expert_used_count"));
    info.expertSharedCount = clampU32(g.uint(a + "expert_shared_count"));
    info.expertFeedForwardSize = clampU32(g.uint(a + "expert_feed_forward_length"));
    info.mtpLayers = clampU32(g.uint(a + "nextn_predict_layers"));
}

void readWindowAndRecurrent(const GgufFile &g, ModelInfo &info)
{
    const std::string a = info.architecture + ".";
    info.slidingWindow = clampU32(g.uint(a + "attention.sliding_window"));
    // M-RoPE models (Qwen2-VL, Qwen3-VL, Qwen3.5) carry the sections of their rotary dims.
    info.multiAxisRope = g.arrayLength(a + "rope.dimension_sections") > 0;
    info.slidingWindowPattern = clampU32(g.uint(a + "attention.sliding_window_pattern"));
    if (info.slidingWindow > 0 && info.slidingWindowPattern == 0) {
        // Architectures whose pattern llama.cpp hard-codes rather than reads from the file.
        if (info.architecture == "gemma3")
            info.slidingWindowPattern = 6;
        else if (info.architecture == "gemma2")
            info.slidingWindowPattern = 2;
        else if (info.architecture == "cohere2")
            info.slidingWindowPattern = 4;
    }
    info.fullAttentionInterval = clampU32(g.uint(a + "full_attention_interval"));
    info.ssmConvKernel = clampU32(g.uint(a + "ssm.conv_kernel"));
    info.ssmStateSize = clampU32(g.uint(a + "ssm.state_size"));
    info.ssmInnerSize = clampU32(g.uint(a + "ssm.inner_size"));
    info.ssmGroupCount = clampU32(g.uint(a + "ssm.group_count"));
    info.ssmTimeStepRank = clampU32(g.uint(a + "ssm.time_step_rank"));
}

void readChatDefaults(const GgufFile &g, ModelInfo &info)
{
    if (auto t = g.string("tokenizer.chat_template")) {
        info.hasChatTemplate = !t->empty();
        info.chatTemplate = *t;
    }
    if (auto v = g.real("general.sampling.temp"))
        info.samplingTemp = *v;
    if (auto v = g.real("general.sampling.top_p"))
        info.samplingTopP = *v;
    if (auto v = g.real("general.sampling.min_p"))
        info.samplingMinP = *v;
    if (auto v = g.uint("general.sampling.top_k"))
        info.samplingTopK = static_cast<int>(std::min<uint64_t>(*v, 1u << 20));
}

std::optional<Error> checkHyperparameters(const ModelInfo &info)
{
    for (uint32_t v : {info.layerCount, info.embeddingSize, info.headCount, info.headCountKv, info.contextLength,
                       info.expertCount, info.expertUsedCount}) {
        if (v > kMaxSane)
            return Error{ErrorCode::Corrupt, "a size in the " + info.architecture + ".* metadata is absurdly large"};
    }
    if (info.layerCount == 0)
        return Error{ErrorCode::Corrupt, info.architecture + ".block_count is missing or zero"};
    if (info.layerCount > 4096)
        return Error{ErrorCode::Corrupt, info.architecture + ".block_count is " + std::to_string(info.layerCount)};
    if (info.expertUsedCount > info.expertCount)
        return Error{ErrorCode::Corrupt, info.architecture + ".expert_used_count is larger than " +
                                             info.architecture + ".expert_count"};
    return std::nullopt;
}

std::optional<Error> readTensorTable(const GgufParts &parts, ModelInfo &info)
{
    info.layers.resize(info.layerCount);
    for (uint32_t i = 0; i < info.layerCount; ++i)
        info.layers[i].index = static_cast<int>(i);

    for (size_t p = 0; p < parts.size(); ++p) {
        const GgufFile &part = *parts[p];
        info.fileSize += part.fileSize();
        const int64_t n = part.tensorCount();
        for (int64_t i = 0; i < n; ++i) {
            const ggml_tensor *t = part.tensor(i);
            if (!t)
                return Error{ErrorCode::Corrupt, "tensor table is inconsistent"};
            TensorInfo ti = describeTensor(t, static_cast<int>(p));
            addTensor(info, ti);
            info.tensors.push_back(std::move(ti));
        }
    }
    if (info.tensors.empty())
        return Error{ErrorCode::Corrupt, "the file has no tensors"};
    return std::nullopt;
}

void finishLayers(ModelInfo &info)
{
    // A recurrent (linear-attention) layer keeps state, not a KV cache, even with attn_qkv.
    for (auto &l : info.layers)
        if (l.hasRecurrent && !l.hasSeparateK)
            l.hasAttention = false;

    if (info.slidingWindow > 0 && info.slidingWindowPattern > 1) {
        for (auto &l : info.layers)
            l.slidingWindow = (l.index + 1) % static_cast<int>(info.slidingWindowPattern) != 0;
    }
    if (info.vocabSize == 0) {
        for (const auto &t : info.tensors)
            if (t.name == "token_embd.weight")
                info.vocabSize = static_cast<uint32_t>(t.shape[1]);
    }
    // Qwen3.5/3.6 have a shared expert without the count key (only its FFN length).
    if (info.expertSharedCount == 0) {
        for (const auto &t : info.tensors)
            if (t.name.find("_shexp.") != std::string::npos) {
                info.expertSharedCount = 1;
                break;
            }
    }
}

} // namespace shoehorn::internal
