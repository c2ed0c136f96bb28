#include "cpuweights.h"

#include <ggml.h>

#include <algorithm>

namespace shoehorn {

namespace {
// The row alignment AMX needs for a weight type, 0 for a type it does not take (ggml-cpu/amx/
// amx.cpp, extra_buffer_type::supports_op: MUL_MAT only, src0->ne[0] a multiple of this and
// the output rows, src0->ne[1], a multiple of TILE_N * 2 = 32).
int64_t amxAlignment(ggml_type type)
{
    switch (type) {
    case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q8_0: return 32;
    case GGML_TYPE_Q4_K: case GGML_TYPE_Q5_K: case GGML_TYPE_Q6_K: case GGML_TYPE_IQ4_XS: return 256;
    case GGML_TYPE_F16: return 16;
    default: return 0;
    }
}

} // namespace

bool amxTakes(const TensorInfo &ti)
{
    const int64_t align = amxAlignment(static_cast<ggml_type>(ti.typeId));
    return align > 0 && ti.shape[2] == 1 && ti.shape[3] == 1 && ti.shape[1] % 32 == 0 && ti.shape[0] % align == 0;
}

// What a weight takes on the CPU when llama.cpp's AMX buffer type holds it (ggml-cpu/amx:
// weight_buft_supported() tries AMX first for matrix-multiplied 2-D weights; the packed rows of
// q8_0, q4_K, q5_K and iq4_xs carry extra per-block sums, amx/mmq.cpp get_row_size()). Row
// lookups (token_embd) and MUL_MAT_ID experts stay in the plain or the repack buffer, whose
// tensors keep their file size.
uint64_t cpuWeightBytes(const TensorInfo &ti, bool amx)
{
    const auto type = static_cast<ggml_type>(ti.typeId);
    if (!amx || ti.role == TensorRole::Expert || ti.role == TensorRole::Embedding || !amxTakes(ti))
        return ti.bytes;
    int64_t extraPerBlock = 0;
    switch (type) {
    case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1: case GGML_TYPE_Q6_K: break;
    case GGML_TYPE_Q8_0: case GGML_TYPE_Q4_K: case GGML_TYPE_Q5_K: extraPerBlock = 4; break;
    case GGML_TYPE_IQ4_XS: extraPerBlock = 2; break;
    default: return ti.bytes; // f16: not packed
    }
    const int64_t k = ti.shape[0], n = ti.shape[1];
    const int64_t blocks = k / ggml_blck_size(type);
    return static_cast<uint64_t>(n * (blocks * static_cast<int64_t>(ggml_type_size(type)) + blocks * extraPerBlock));
}

// The copy of a tied token_embd that llama.cpp makes for the output layer on the CPU, 0 if
// none. The output loads token_embd again with TENSOR_DUPLICATED as an LLM_TENSOR_OUTPUT
// (llama-model.cpp; llama-model-loader.cpp create_tensor() then takes the output's buffer
// list), and select_weight_buft() gives it the first of AMX, CPU_REPACK and CPU
// (make_cpu_buft_list()) that runs its MUL_MAT. token_embd itself (GET_ROWS) is in the plain CPU
// buffer, and create_tensor() returns the existing tensor when the duplicate's buffer type is
// the same: so there is a second copy only when AMX or CPU_REPACK takes the type.
uint64_t cpuTiedOutputCopy(const TensorInfo &embd, const PlanTarget &t)
{
    TensorInfo asOutput = embd;
    asOutput.role = TensorRole::Output;
    if (t.cpuAmx && amxTakes(asOutput))
        return cpuWeightBytes(asOutput, true);
    // ggml-cpu/repack.cpp ggml_repack_get_optimal_repack_type(): rows in groups of 8 on x86, of 4
    // for some ARM kernels; 4 errs on the safe side (a copy planned that x86 would not make).
    const bool repacked = std::find(t.cpuRepackTypes.begin(), t.cpuRepackTypes.end(), embd.typeId) !=
                          t.cpuRepackTypes.end();
    if (repacked && embd.shape[1] % 4 == 0)
        return embd.bytes;
    return 0;
}

// Whether this CPU copies a CPU-side weight into one of its extra buffer types (AMX or
// CPU_REPACK) instead of using it where it lies: llama.cpp's select_weight_buft() tries AMX
// (2-D MUL_MAT, amxTakes) and then CPU_REPACK (ggml-cpu/repack.cpp supports_op(): a 2-D MUL_MAT
// or 3-D MUL_MAT_ID weight of a type ggml_repack_get_optimal_repack_type() takes, rows in groups
// of 8 on x86, of 4 on some ARM: 4, as in cpuTiedOutputCopy). Row lookups (token_embd) and 1-D
// norms stay in the plain buffer.
bool cpuRepacks(const TensorInfo &ti, const PlanTarget &t)
{
    if (ti.role == TensorRole::Embedding)
        return false;
    if (t.cpuAmx && ti.role != TensorRole::Expert && amxTakes(ti))
        return true;
    const bool type = std::find(t.cpuRepackTypes.begin(), t.cpuRepackTypes.end(), ti.typeId) != t.cpuRepackTypes.end();
    const bool matrix = ti.shape[3] == 1 && ti.shape[1] > 1 && (ti.role == TensorRole::Expert) == (ti.shape[2] > 1);
    return type && matrix && ti.shape[1] % 4 == 0;
}

} // namespace shoehorn
