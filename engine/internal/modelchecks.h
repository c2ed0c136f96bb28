#pragma once

// Engine-internal: what llama.cpp would assert on (abort the process) or misread, checked while
// inspecting so that a broken or hostile GGUF becomes an Error that names the field and its
// value. The limits follow the pinned llama.cpp (src/llama-hparams.h, llama-model.cpp,
// llama-vocab.cpp).

#include "error.h"
#include "gguffile.h"
#include "modelinfo.h"

#include <optional>

namespace shoehorn::internal {

constexpr uint64_t kLlamaMaxLayers = 512;   // LLAMA_MAX_LAYERS
constexpr uint64_t kLlamaMaxExperts = 1024; // LLAMA_MAX_EXPERTS

// Layer and expert counts, experts used per token, normalisation epsilons.
std::optional<Error> checkLlamaLimits(const GgufFile &g, const ModelInfo &info);

// tokenizer.ggml.model is one llama.cpp can use; no token string twice (llama.cpp asserts);
// a SentencePiece ("llama") vocabulary has its 256 byte tokens.
std::optional<Error> checkVocabulary(const GgufFile &g);

// What only the first decode would find, so the helper's dry run cannot (docs/hostile-files.md):
// rotary dimensions the CPU's rope kernel takes (even, within the head; M-RoPE sections), a
// causal model (an encoder asserts on a batch larger than its micro-batch).
std::optional<Error> checkDecodeHyperparameters(const GgufFile &g, const ModelInfo &info);

// Every tensor of every part: no dimension of size 0 (ggml divides by them), one-dimensional
// tensors (norms, biases, scales) in F32 as ggml's CPU element-wise kernels need, and weights of a
// type the CPU can multiply (gguf accepts I32 or Q8_K weights, which end in an abort or a jump to
// a null kernel at the first decode).
std::optional<Error> checkTensorTypes(const GgufFile &part);

} // namespace shoehorn::internal
