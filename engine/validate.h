#pragma once

#include "error.h"
#include "hardware.h"
#include "modelinfo.h"
#include "planner.h"
#include "settings.h"

#include <cstdint>
#include <string>

namespace shoehorn {

// The KV cache types llama.cpp takes, as one list for messages: "f32, f16, bf16, q8_0, ...".
std::string kvCacheTypeList();
// A block-quantized type (q8_0, q4_0, iq4_nl, ...), as llama.cpp's ggml_is_quantized() says.
bool isQuantizedKvType(const std::string &type);

// The sequences (slots) one llama.cpp context takes: LLAMA_MAX_SEQ (src/llama-cparams.h).
constexpr int kMaxSequences = 256;

// Settings llama.cpp would refuse or misread, found before anything loads: an unknown KV cache
// type, a quantized V cache without flash attention (llama.cpp: "quantized V cache requires
// flash_attn"; a quantized K cache is fine without it), and counts out of their range. Returns
// InvalidArgument with one sentence that names the llama.cpp-style flag, or no error. Every
// shoehorn-cli command and ChatSession::create use it.
Error validate(const ContextSettings &context);
Error validate(const SpeculationSettings &speculation);
Error validate(const PlanSettings &settings);

// Settings this model cannot take: a quantized KV cache type (blocks of 32 values) on a model
// whose head size is not a multiple of 32 (llama.cpp refuses the context: "K cache type q8_0
// with block size 32 does not divide n_embd_head_k"). InvalidArgument naming the flag, the type,
// the block size and the model's head size, or no error.
Error validate(const ModelInfo &model, const ContextSettings &context);
// A context whose KV cache alone is larger than all the memory `target` has (RAM and every GPU
// together) cannot load: llama.cpp allocates the cache's bookkeeping per cell first (GiBs of RAM
// for -c 2000000000) and fails after. OutOfMemory naming the context and both sizes, or none.
Error validateMemory(const ModelInfo &model, const ContextSettings &context, const PlanTarget &target);
// The block of values a KV cache type stores together (32 for the quantized ones, else 1).
int kvTypeBlockSize(const std::string &type);

// The V cache type llama.cpp takes for a wanted one under this flash-attention setting: the
// wanted type, except that without flash attention a quantized V becomes f16.
std::string allowedTypeV(const std::string &wantedV, FlashAttention flashAttention);

// A context above the model's trained length: one English sentence that says what llama.cpp
// does with it (its server gives a conversation at most the trained length; the KV cache above
// that is allocated and unused) and that the Shoehorn app caps it at the trained length. Empty when the context is within it or
// the model does not say its trained length. `contextSize` 0 means the trained length.
std::string contextWarning(const ModelInfo &model, uint32_t contextSize);

// More threads (-t, -tb) than the `cpuThreads` this process may use at once (its CPUs, or its
// affinity mask): llama.cpp's threads
// then take turns on the cores and every step waits for the last of them (measured on two CPU
// threads, a tiny model: -t 2 4147 tokens/s, -t 4 2.2, -t 8 0.7). One English sentence naming
// the flag, or empty.
std::string threadsWarning(const ContextSettings &context, unsigned cpuThreads);

} // namespace shoehorn
