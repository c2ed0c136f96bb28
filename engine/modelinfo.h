#pragma once

#include "error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn {

enum class TensorRole {
    Embedding,  // token_embd and friends: stays on the CPU side unless the output is offloaded
    Output,     // output / output_norm: goes with the last (+1) layer
    Attention,  // attention projections and norms of a layer
    Recurrent,  // SSM / linear-attention state tensors of hybrid layers
    DenseFfn,   // dense FFN, shared experts, router
    Expert,     // routed expert weights (ffn_*_exps): what --n-cpu-moe moves
    Other,
};

struct TensorInfo {
    std::string name;
    std::string type;        // ggml type name, e.g. "q4_K"
    int typeId = 0;          // ggml_type
    int64_t shape[4] = {1, 1, 1, 1};
    uint64_t bytes = 0;
    uint64_t elements = 0;
    int layer = -1;          // blk.N, -1 for global tensors
    TensorRole role = TensorRole::Other;
    int split = 0;           // which file of a split model holds it
};

struct LayerInfo {
    int index = 0;
    uint64_t attentionBytes = 0;
    uint64_t recurrentBytes = 0;
    uint64_t denseFfnBytes = 0;
    uint64_t expertBytes = 0;
    bool hasAttention = false;
    bool hasRecurrent = false;
    bool hasSeparateK = false;    // attn_k tensor of its own
    bool slidingWindow = false;   // attention limited to the sliding window
    uint64_t totalBytes() const { return attentionBytes + recurrentBytes + denseFfnBytes + expertBytes; }
};

struct ModelInfo {
    std::string path;
    std::vector<std::string> files; // all parts of a split model, in order
    std::string architecture;
    std::string name;
    int fileType = -1;              // general.file_type (llama_ftype)
    std::string fileTypeName;       // e.g. "Q4_K_M"
    uint64_t fileSize = 0;          // all parts together
    uint64_t parameterCount = 0;
    uint64_t expertParameterCount = 0; // of parameterCount, in routed experts
    uint64_t tensorBytes = 0;

    uint32_t layerCount = 0;
    uint32_t embeddingSize = 0;
    uint32_t feedForwardSize = 0;
    uint32_t headCount = 0;
    uint32_t headCountKv = 0;       // max over layers
    std::vector<int64_t> headCountKvPerLayer; // when the file has a per-layer array
    uint32_t headSizeK = 0;
    uint32_t headSizeV = 0;
    uint32_t contextLength = 0;     // trained
    uint32_t vocabSize = 0;

    uint32_t expertCount = 0;
    uint32_t expertUsedCount = 0;
    uint32_t expertSharedCount = 0;
    uint32_t expertFeedForwardSize = 0;
    uint32_t mtpLayers = 0;            // nextn_predict_layers: multi-token-prediction blocks (in block_count)

    bool multiAxisRope = false;        // M-RoPE (rope.dimension_sections): places image tokens by row and column
    uint32_t slidingWindow = 0;        // 0: none
    uint32_t slidingWindowPattern = 0; // every Nth layer is full attention (0: unknown / none)
    uint32_t fullAttentionInterval = 0;// hybrid recurrent models (qwen35moe, qwen3next)
    uint32_t ssmConvKernel = 0;
    uint32_t ssmStateSize = 0;
    uint32_t ssmInnerSize = 0;
    uint32_t ssmGroupCount = 0;
    uint32_t ssmTimeStepRank = 0;

    bool hasChatTemplate = false;
    std::string chatTemplate;
    // Sampling defaults some GGUFs carry (general.sampling.*); negative when absent.
    double samplingTemp = -1, samplingTopP = -1, samplingMinP = -1;
    int samplingTopK = -1;

    std::vector<TensorInfo> tensors;
    std::vector<LayerInfo> layers;     // layerCount entries
    uint64_t globalBytes = 0;          // tensors outside blk.N (embeddings, output)
    uint64_t outputBytes = 0;
    uint64_t embeddingBytes = 0;

    bool isMoe() const { return expertCount > 1; }
    bool isHybrid() const;
    uint64_t expertBytes() const;
    uint64_t denseBytes() const { return tensorBytes - expertBytes(); }
    // Parameters used per token: everything but the experts a token is not routed to.
    uint64_t activeParameterCount() const;
};

// Reads a GGUF's metadata and tensor table without loading weights. Never aborts on bad input.
Result<ModelInfo> inspectModel(const std::string &path);

// "model-00001-of-00003.gguf" -> all three part paths; empty if the name has no split suffix.
std::vector<std::string> splitPaths(const std::string &path);

std::string fileTypeName(int llamaFtype);
std::string formatBytes(uint64_t bytes);
// A parameter count as model names write it: "30.5B", "600M", "200K" (the unit chosen after
// rounding: 999,999 is "1M", not "1000K"). The CLI's info and the window's Models list.
std::string formatParameterCount(uint64_t count);
std::string modelInfoToJson(const ModelInfo &info, bool withTensors = false);

} // namespace shoehorn
