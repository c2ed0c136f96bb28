#pragma once

// Internal to shoehorn_fixtures: what the parts of the GGUF writer share. fixtures.cpp writes
// the file; the pieces it puts in come from tokenizer.cpp, tensorlayout.cpp and tensordata.cpp.
// The presets (presets.cpp) need none of this.

#include "fixtures.h"

#include <ggml.h>
#include <gguf.h>

#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn::fixtures::detail {

// tokenizer.cpp: a small SentencePiece-style vocabulary and the chat templates.
enum TokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Byte = 6 };

struct Vocab {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<int32_t> types;
};

// Control and byte tokens, the built-in words, then filler tokens up to `minSize`.
Vocab makeVocab(uint32_t minSize, bool controlHighBytes = false);
// tokenizer.* metadata and the chat template (ChatML, or the thinking one).
void setTokenizer(gguf_context *g, const Spec &s, const Vocab &vocab);
// Per-token scales of the output layer: word tokens get larger weights than byte and control
// tokens, so a random model writes word salad that rarely ends.
std::vector<float> outputRowScales(const Vocab &vocab);

// tensorlayout.cpp: the tensors of an architecture, their shapes and quantization types.
struct TensorDef {
    std::string name;
    int64_t ne[3];
    int dims;
    uint32_t layer;
};

std::vector<TensorDef> tensorDefs(const Spec &s, uint32_t nVocab);
// The tensors of `defs` in `meta` (no data), each of the type the spec's quantization gives it.
std::vector<ggml_tensor *> makeTensors(ggml_context *meta, const Spec &s, const std::vector<TensorDef> &defs);

// tensordata.cpp: tensor bytes.
// Fills one tensor's bytes with deterministic noise of its type; rowScale (optional, one per
// row) scales the rows (see outputRowScales).
std::vector<uint8_t> randomData(const ggml_tensor *t, uint64_t seed, float scale,
                                const std::vector<float> *rowScale = nullptr);
// Random quantized blocks whose fp16 scales are small and finite, written straight into the
// block layout: no float generation or quantization, so 18 GB take seconds, not an hour.
std::vector<uint8_t> fastRandomData(const ggml_tensor *t, uint64_t seed);

} // namespace shoehorn::fixtures::detail
