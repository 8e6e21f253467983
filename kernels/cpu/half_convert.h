// Scalar bfloat16 / float16 <-> float32 conversions for the CPU references: exact widening, and narrowing with
// round-to-nearest-even (overflow gives inf), bit for bit what c10::BFloat16 / c10::Half produce, NaN included
// (c10's canonical 0x7FC0 / sign|0x7E00; CUDA's intrinsics round the same but write other NaN bits).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fts::kernels {

inline uint32_t floatBits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
inline float bitsFloat(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

inline float bf16ToFloat(uint16_t h) { return bitsFloat(uint32_t(h) << 16); }

inline uint16_t floatToBf16(float f) {
    const uint32_t u = floatBits(f);
    if (std::isnan(f)) return 0x7fc0;
    const uint32_t roundingBias = 0x7fff + ((u >> 16) & 1);
    return uint16_t((u + roundingBias) >> 16);
}

inline float fp16ToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    if (exp == 0) {  // zero or subnormal: mant * 2^-24
        const float v = std::ldexp(float(mant), -24);
        return sign ? -v : v;
    }
    if (exp == 31) return bitsFloat(sign | 0x7f800000u | (mant << 13));  // inf / NaN
    return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t floatToFp16(float f) {
    const uint32_t u = floatBits(f);
    const uint16_t sign = uint16_t((u >> 16) & 0x8000);
    const uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return sign | 0x7e00;   // NaN
    if (a >= 0x477ff000u) return sign | 0x7c00;  // >= 65520 rounds to inf (inf itself too)
    if (a < 0x38800000u) {                       // below 2^-14: a subnormal half (or zero); a * 2^24 is exact
        return sign | uint16_t(std::nearbyint(bitsFloat(a) * 16777216.0f));  // default rounding: to nearest even
    }
    uint32_t h = ((((a >> 23) - 127 + 15) << 10) | ((a & 0x7fffffu) >> 13));
    const uint32_t rest = a & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is the right result
    return uint16_t(sign | h);
}

}  // namespace fts::kernels
