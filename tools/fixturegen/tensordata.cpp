#include "fixturesinternal.h"

#include <cstring>
#include <random>

namespace shoehorn::fixtures::detail {

std::vector<uint8_t> randomData(const ggml_tensor *t, uint64_t seed, float scale, const std::vector<float> *rowScale)
{
    const int64_t n = ggml_nelements(t);
    std::mt19937_64 gen(seed ^ std::hash<std::string>{}(ggml_get_name(t)));
    std::normal_distribution<float> dist(0.0f, scale);
    const bool isNorm = std::string(ggml_get_name(t)).find("norm") != std::string::npos;
    std::vector<float> f(static_cast<size_t>(n));
    for (auto &x : f)
        x = isNorm ? 1.0f + dist(gen) : dist(gen);
    if (rowScale && t->ne[1] == static_cast<int64_t>(rowScale->size())) {
        for (int64_t r = 0; r < t->ne[1]; ++r)
            for (int64_t c = 0; c < t->ne[0]; ++c)
                f[static_cast<size_t>(r * t->ne[0] + c)] *= (*rowScale)[static_cast<size_t>(r)];
    }
    std::vector<uint8_t> out(ggml_nbytes(t));
    if (t->type == GGML_TYPE_F32) {
        std::memcpy(out.data(), f.data(), out.size());
    } else if (t->type == GGML_TYPE_F16) {
        ggml_fp32_to_fp16_row(f.data(), reinterpret_cast<ggml_fp16_t *>(out.data()), n);
    } else if (t->type == GGML_TYPE_BF16) {
        ggml_fp32_to_bf16_row(f.data(), reinterpret_cast<ggml_bf16_t *>(out.data()), n);
    } else {
        const int64_t perRow = t->ne[0];
        ggml_quantize_chunk(t->type, f.data(), out.data(), 0, n / perRow, perRow, nullptr);
    }
    return out;
}

std::vector<uint8_t> fastRandomData(const ggml_tensor *t, uint64_t seed)
{
    std::vector<uint8_t> out(ggml_nbytes(t));
    uint64_t x = seed ^ (std::hash<std::string>{}(ggml_get_name(t)) | 1);
    for (size_t i = 0; i + 8 <= out.size(); i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(out.data() + i, &x, 8);
    }
    const ggml_fp16_t d = ggml_fp32_to_fp16(0.002f), dmin = ggml_fp32_to_fp16(0.001f);
    const size_t block = ggml_type_size(t->type);
    for (size_t off = 0; off + block <= out.size(); off += block) {
        switch (t->type) {
        case GGML_TYPE_Q4_K: // d, dmin first
            std::memcpy(out.data() + off, &d, 2);
            std::memcpy(out.data() + off + 2, &dmin, 2);
            break;
        case GGML_TYPE_Q6_K: // d last
            std::memcpy(out.data() + off + block - 2, &d, 2);
            break;
        case GGML_TYPE_Q8_0: // d first
            std::memcpy(out.data() + off, &d, 2);
            break;
        default:
            break;
        }
    }
    return out;
}

} // namespace shoehorn::fixtures::detail
