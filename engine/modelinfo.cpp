#include "modelinfo.h"

#include "gguffile.h"

#include <ggml.h>
#include <gguf.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <regex>

namespace shoehorn {

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

} // namespace

std::vector<std::string> splitPaths(const std::string &path)
{
    static const std::regex re(R"((.*)-(\d{5})-of-(\d{5})\.gguf$)");
    std::smatch m;
    if (!std::regex_match(path, m, re))
        return {};
    const int count = std::stoi(m[3].str());
    if (count < 1 || count > 9999)
        return {};
    std::vector<std::string> out;
    for (int i = 1; i <= count; ++i) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "-%05d-of-%05d.gguf", i, count);
        out.push_back(m[1].str() + buf);
    }
    return out;
}

std::string fileTypeName(int t)
{
    switch (t) {
    case 0: return "F32";
    case 1: return "F16";
    case 2: return "Q4_0";
    case 3: return "Q4_1";
    case 7: return "Q8_0";
    case 8: return "Q5_0";
    case 9: return "Q5_1";
    case 10: return "Q2_K";
    case 11: return "Q3_K_S";
    case 12: return "Q3_K_M";
    case 13: return "Q3_K_L";
    case 14: return "Q4_K_S";
    case 15: return "Q4_K_M";
    case 16: return "Q5_K_S";
    case 17: return "Q5_K_M";
    case 18: return "Q6_K";
    case 19: return "IQ2_XXS";
    case 20: return "IQ2_XS";
    case 21: return "Q2_K_S";
    case 22: return "IQ3_XS";
    case 23: return "IQ3_XXS";
    case 24: return "IQ1_S";
    case 25: return "IQ4_NL";
    case 26: return "IQ3_S";
    case 27: return "IQ3_M";
    case 28: return "IQ2_S";
    case 29: return "IQ2_M";
    case 30: return "IQ4_XS";
    case 31: return "IQ1_M";
    case 32: return "BF16";
    case 36: return "TQ1_0";
    case 37: return "TQ2_0";
    case 38: return "MXFP4_MOE";
    default: return t < 0 ? "unknown" : "type " + std::to_string(t);
    }
}

std::string formatBytes(uint64_t b)
{
    char buf[64];
    const double v = static_cast<double>(b);
    if (b >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", v / (1ull << 30));
    else if (b >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", v / (1ull << 20));
    else if (b >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", v / 1024);
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    return buf;
}

bool ModelInfo::isHybrid() const
{
    bool attn = false, rec = false;
    for (const auto &l : layers) {
        attn |= l.hasAttention;
        rec |= l.hasRecurrent;
    }
    return attn && rec;
}

uint64_t ModelInfo::activeParameterCount() const
{
    if (!isMoe() || expertCount == 0)
        return parameterCount;
    const double unused = 1.0 - double(expertUsedCount) / double(expertCount);
    return parameterCount - static_cast<uint64_t>(double(expertParameterCount) * unused);
}

uint64_t ModelInfo::expertBytes() const
{
    uint64_t s = 0;
    for (const auto &l : layers)
        s += l.expertBytes;
    return s;
}

Result<ModelInfo> inspectModel(const std::string &path)
{
    ModelInfo info;
    info.path = path;
    info.files = splitPaths(path);
    if (info.files.empty())
        info.files.push_back(path);

    std::vector<std::shared_ptr<GgufFile>> parts;
    for (size_t i = 0; i < info.files.size(); ++i) {
        auto f = GgufFile::open(info.files[i]);
        if (!f) {
            Error e = f.error();
            if (i > 0 && e.code == ErrorCode::FileNotFound)
                e.code = ErrorCode::SplitMissing;
            if (info.files.size() > 1)
                e.detail = info.files[i] + ": " + e.detail;
            return e;
        }
        parts.push_back(*f);
    }
    const GgufFile &g = *parts.front();
    if (info.files.size() > 1) {
        const auto count = g.uint("split.count");
        if (count && *count != info.files.size())
            return Error{ErrorCode::Corrupt, "split.count says " + std::to_string(*count) + " parts, the name says " +
                                                 std::to_string(info.files.size())};
    }

    const auto arch = g.string("general.architecture");
    if (!arch || arch->empty() || arch->size() > 64)
        return Error{ErrorCode::Corrupt, "general.architecture is missing"};
    info.architecture = *arch;
    const std::string a = info.architecture + ".";
    info.name = g.string("general.name").value_or("");
    if (info.name.size() > 1024)
        info.name.resize(1024);
    if (auto ft = g.uint("general.file_type"))
        info.fileType = static_cast<int>(std::min<uint64_t>(*ft, 1u << 16));
    info.fileTypeName = fileTypeName(info.fileType);

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
    info.slidingWindow = clampU32(g.uint(a + "attention.sliding_window"));
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

    for (uint32_t *v : {&info.layerCount, &info.embeddingSize, &info.headCount, &info.headCountKv,
                        &info.contextLength, &info.expertCount, &info.expertUsedCount}) {
        if (*v > kMaxSane)
            return Error{ErrorCode::Corrupt, "absurd hyperparameter value in the metadata"};
    }
    if (info.layerCount == 0)
        return Error{ErrorCode::Corrupt, a + "block_count is missing or zero"};
    if (info.layerCount > 4096)
        return Error{ErrorCode::Corrupt, "absurd layer count " + std::to_string(info.layerCount)};
    if (info.expertUsedCount > info.expertCount)
        return Error{ErrorCode::Corrupt, "more experts used than exist"};

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
            ti.split = static_cast<int>(p);
            info.parameterCount += ti.elements;
            if (ti.role == TensorRole::Expert)
                info.expertParameterCount += ti.elements;
            info.tensorBytes += ti.bytes;
            if (ti.layer >= 0 && ti.layer < static_cast<int>(info.layerCount)) {
                LayerInfo &l = info.layers[static_cast<size_t>(ti.layer)];
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
                    // also fuse q/k/v into attn_qkv in their recurrent layers: see below.
                    if (ti.name.find(".attn_k.") != std::string::npos)
                        l.hasAttention = l.hasSeparateK = true;
                    else if (ti.name.find(".attn_qkv.") != std::string::npos)
                        l.hasAttention = true;
                    break;
                }
            } else {
                info.globalBytes += ti.bytes;
                if (ti.role == TensorRole::Output)
                    info.outputBytes += ti.bytes;
                else if (ti.role == TensorRole::Embedding)
                    info.embeddingBytes += ti.bytes;
            }
            info.tensors.push_back(std::move(ti));
        }
    }
    if (info.tensors.empty())
        return Error{ErrorCode::Corrupt, "the file has no tensors"};
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
    return info;
}

std::string modelInfoToJson(const ModelInfo &info, bool withTensors)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["path"] = info.path;
    j["files"] = info.files;
    j["architecture"] = info.architecture;
    j["name"] = info.name;
    j["file_type"] = info.fileType;
    j["file_type_name"] = info.fileTypeName;
    j["file_size"] = info.fileSize;
    j["parameter_count"] = info.parameterCount;
    j["tensor_bytes"] = info.tensorBytes;
    j["layer_count"] = info.layerCount;
    j["embedding_size"] = info.embeddingSize;
    j["feed_forward_size"] = info.feedForwardSize;
    j["head_count"] = info.headCount;
    j["head_count_kv"] = info.headCountKv;
    j["head_size_k"] = info.headSizeK;
    j["head_size_v"] = info.headSizeV;
    j["context_length"] = info.contextLength;
    j["vocab_size"] = info.vocabSize;
    j["expert_count"] = info.expertCount;
    j["expert_used_count"] = info.expertUsedCount;
    j["expert_shared_count"] = info.expertSharedCount;
    j["expert_feed_forward_size"] = info.expertFeedForwardSize;
    j["sliding_window"] = info.slidingWindow;
    j["sliding_window_pattern"] = info.slidingWindowPattern;
    j["full_attention_interval"] = info.fullAttentionInterval;
    j["hybrid"] = info.isHybrid();
    j["has_chat_template"] = info.hasChatTemplate;
    j["expert_bytes"] = info.expertBytes();
    j["dense_bytes"] = info.denseBytes();
    j["global_bytes"] = info.globalBytes;
    ordered_json layers = ordered_json::array();
    for (const auto &l : info.layers) {
        layers.push_back({{"index", l.index},
                          {"attention_bytes", l.attentionBytes},
                          {"recurrent_bytes", l.recurrentBytes},
                          {"dense_ffn_bytes", l.denseFfnBytes},
                          {"expert_bytes", l.expertBytes},
                          {"attention", l.hasAttention},
                          {"recurrent", l.hasRecurrent},
                          {"sliding_window", l.slidingWindow}});
    }
    j["layers"] = layers;
    if (withTensors) {
        ordered_json ts = ordered_json::array();
        for (const auto &t : info.tensors)
            ts.push_back({{"name", t.name},
                          {"type", t.type},
                          {"shape", {t.shape[0], t.shape[1], t.shape[2], t.shape[3]}},
                          {"bytes", t.bytes},
                          {"layer", t.layer}});
        j["tensors"] = ts;
    }
    return j.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

} // namespace shoehorn
