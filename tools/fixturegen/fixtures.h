#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn::fixtures {

// How tensor data is written.
enum class Fill {
    Random, // deterministic normal noise, quantized to the tensor's type: the model really runs
    Sparse, // no data written: the file is truncated to size (a sparse file of the real size)
    Fast,   // random quantized blocks with sane scales: fast enough for full-size models (GB/s);
            // the model computes real (meaningless) numbers, which is what speed checks need
};

// The shape of a model. Tiny presets run end to end; full-size presets copy the exact
// tensor shapes and quantization mix of a named real model for inspection and planning.
struct Spec {
    std::string arch = "llama";  // "llama", "qwen3moe", "qwen35moe" (hybrid) or "gemma3" (sliding window)
    std::string name;
    uint32_t layers = 4;
    uint32_t embd = 64;
    uint32_t heads = 4;
    uint32_t headsKv = 2;
    uint32_t headDim = 16;
    uint32_t ff = 128;           // dense FFN width
    uint32_t experts = 0;
    uint32_t expertsUsed = 0;
    uint32_t expertFf = 0;
    uint32_t contextLength = 2048;
    bool samplingDefaults = false; // writes general.sampling.* (temp 0.6, top-p 0.95, top-k 20, min-p 0)
    uint32_t vocab = 0;          // 0: the built-in small vocabulary; larger: padded with filler tokens
    std::string quant = "f16";   // "f16", "f32", "q8_0", "q4_k_m"
    Fill fill = Fill::Random;
    uint64_t seed = 42;
    bool alignmentKey = false; // write general.alignment (32, the layout's) as many real files do
    uint32_t ropeDims = 0;       // 0: the head size
    uint32_t sharedExpertFf = 0; // shared expert width (qwen35moe)
    uint32_t slidingWindow = 0;  // gemma3
    uint32_t ssmConvKernel = 0;  // qwen35moe gated delta net layers
    uint32_t ssmStateSize = 0;
    uint32_t ssmGroupCount = 0;
    uint32_t ssmTimeStepRank = 0;
    uint32_t fullAttentionInterval = 4;
    // qwen35moe: multi-token-prediction ("nextn") blocks after the `layers` trunk blocks, as
    // Qwen3.5/3.6 GGUFs carry them for llama.cpp's --spec-type draft-mtp (it runs exactly one).
    uint32_t mtpLayers = 0;
    // No output.weight: the output layer reuses token_embd. With tiedEmbeddingType, token_embd
    // gets the type output.weight would have had (Q6_K in Q4_K_M), as llama.cpp's quantizer
    // does for tied models (llama-quant.cpp: has_tied_embeddings); without it, the usual type.
    bool tiedOutput = false;
    bool tiedEmbeddingType = true;
    bool thinkingTemplate = false; // Qwen3.5-style <think> template instead of plain ChatML
    std::string chatTemplate;      // non-empty: this Jinja template instead (hostile-file tests)
    // Byte tokens <0x80>..<0xFF> typed CONTROL: random weights then cannot sample bytes that make
    // invalid UTF-8 (llama-server answers 500 on those); ASCII byte tokens stay BYTE.
    bool controlHighBytes = false;
    uint32_t splits = 1;         // >1: NAME-0000k-of-0000N.gguf parts, as gguf-split writes them
    float weightScale = 0.08f;   // std dev of the random weights
};

Spec tinyLlama();
Spec tinyQwen3Moe();
Spec tinyThinking();           // tiny MoE whose template opens a <think> block
Spec tinyApi();                // tiny-llama whose replies are always valid UTF-8 (API tests)
Spec tinyVision();             // tiny Qwen3.5-style hybrid MoE (M-RoPE) for the tiny projector
Spec qwen3_30b_a3b();          // Qwen3-30B-A3B, Q4_K_M, sparse
Spec qwen35_35b_a3b();        // Qwen3.5-35B-A3B: hybrid attention + gated delta net, sparse
Spec qwen35_35b_a3b_mtp();    // the same with its MTP block (block 40), as the real GGUFs carry it
Spec tinyQwen35MoeMtp();      // tiny-vision's model plus one MTP block, for --spec-type draft-mtp
Spec gemma3_12b();            // Gemma-3-12B: sliding-window attention, tied Q6_K embedding, sparse
Spec gemma3_12b_q4kEmbd();    // the same with a tied Q4_K embedding (fixtures before 2026-12)
Spec llama32_3b();             // Llama-3.2-3B, Q4_K_M, sparse: a dense model with tied Q6_K embedding
Spec llama3_8b();              // Llama-3.1-8B, Q4_K_M, sparse (a dense full-shape model)
Spec qwen3_30b_a3b_random(); // Qwen3-30B-A3B Q4_K_M with fast random data, for GPU speed checks
Spec benchQwen3Moe();          // a few hundred MB of real random Q4_K weights, for speed checks
Spec benchQwen3MoeApi();       // the same with valid UTF-8 replies (API benchmarks)
// A vision projector (mmproj-*.gguf) for a tiny text model: Qwen3-VL's merger
// ("qwen3vl_merger", as Qwen3-VL and Qwen3.5 ship), random weights.
struct ProjectorSpec {
    std::string name = "Shoehorn tiny vision projector";
    uint32_t embd = 32;          // vision tower width
    uint32_t heads = 2;
    uint32_t ff = 64;
    uint32_t layers = 2;
    uint32_t projectionDim = 64; // must equal the text model's embedding width (64 for the tiny ones)
    uint32_t patch = 16;
    uint32_t imageSize = 64;     // position table: (imageSize / patch)^2 entries
    std::string type = "f16";    // "f16", "bf16" or "f32": the precision in the file name (mmproj-F16.gguf)
    uint64_t seed = 7;
    bool sparse = false;         // no data written (full-size shapes, for planning)
    bool bf16Convolution = false; // the patch convolution in BF16 too: llama.cpp aborts on it (hostile-file tests)
};
ProjectorSpec tinyProjector();
// Qwen3.5-35B-A3B's vision tower and merger (depth 27, width 1152, out 2048), BF16 as
// ggml-org ships mmproj-*.gguf (0.90 GB), sparse.
ProjectorSpec qwen35_35b_a3b_projector();
ProjectorSpec tinyProjectorMismatch(); // projects to 32, which no tiny model has
std::string writeProjector(const ProjectorSpec &spec, const std::string &path);

std::vector<std::string> presetNames();
bool presetByName(const std::string &name, Spec &out);

// Writes the GGUF (for splits, `path` names the model; parts get the -0000k-of-0000N suffix). Returns an empty string on success, else the reason.
std::string write(const Spec &spec, const std::string &path);

} // namespace shoehorn::fixtures
