#include "modelinfo.h"

#include "guarded.h"

#include "modelchecks.h"
#include "modelreader.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <regex>

namespace shoehorn {

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

std::string formatParameterCount(uint64_t n)
{
    char buf[32];
    const double v = static_cast<double>(n);
    if (v >= 999.5e6) // rounds to 1.0B and up
        std::snprintf(buf, sizeof buf, "%.1fB", v / 1e9);
    else if (v >= 999.5e3) // rounds to 1M and up
        std::snprintf(buf, sizeof buf, "%.0fM", v / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.0fK", v / 1e3);
    return buf;
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
    return internal::guarded(ErrorCode::Corrupt, [&]() -> Result<ModelInfo> {
        ModelInfo info;
        info.path = path;
        info.files = splitPaths(path);
        if (info.files.empty())
            info.files.push_back(path);

        auto parts = internal::openParts(info.files);
        if (!parts)
            return parts.error();
        const GgufFile &g = *parts->front();
        if (auto e = internal::readGeneral(g, info))
            return *e;
        internal::readHyperparameters(g, info);
        internal::readWindowAndRecurrent(g, info);
        internal::readChatDefaults(g, info);
        if (auto e = internal::checkLlamaLimits(g, info))
            return *e;
        if (auto e = internal::checkVocabulary(g))
            return *e;
        if (auto e = internal::checkHyperparameters(info))
            return *e;
        if (auto e = internal::checkDecodeHyperparameters(g, info))
            return *e;
        for (const auto &part : *parts)
            if (auto e = internal::checkTensorTypes(*part))
                return *e;
        if (auto e = internal::readTensorTable(*parts, info))
            return *e;
        internal::finishLayers(info);
        return info;
    });
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
    j["mtp_layers"] = info.mtpLayers;
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
