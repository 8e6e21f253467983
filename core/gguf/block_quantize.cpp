// GGUF tensor encodings (see block_quantize.h). Block layouts, as llama.cpp's ggml-common.h fixes them (all
// little-endian, float16 scales):
//   q4_0  {d, qs[16]}                       value = (q - 8) * d         nibble j: element j (low), j+16 (high)
//   q4_1  {d, m, qs[16]}                    value = q * d + m
//   q5_0  {d, qh[4], qs[16]}                value = (q - 16) * d        bit j of qh: 5th bit of element j
//   q5_1  {d, m, qh[4], qs[16]}             value = q * d + m
//   q8_0  {d, qs[32] int8}                  value = q * d
//   q4_K  {d, dmin, scales[12], qs[128]}    8 sub-blocks of 32, 6-bit scale and min each: value = d*sc*q - dmin*m
//   q5_K  {d, dmin, scales[12], qh[32], qs[128]}
//   q6_K  {ql[128], qh[64], scales[16] int8, d}   16 sub-blocks of 16: value = d * sc * (q - 32)
// The searches for a block's scale (make_qkx2_quants / make_qx_quants in ggml-quants.c) are reproduced operation
// for operation: the order of float additions decides which candidate scale wins, and so the bytes.
#include "core/gguf/block_quantize.h"
#include "core/gguf/kquant_lanes.h"
#include "kernels/cpu/half_convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fts::gguf {
namespace {

uint32_t bitsOf(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

void storeHalf(uint8_t* at, float value) {
    const uint16_t h = floatToHalf(value);
    at[0] = static_cast<uint8_t>(h & 0xff);
    at[1] = static_cast<uint8_t>(h >> 8);
}

float loadHalf(const uint8_t* at) { return halfToFloat(static_cast<uint16_t>(at[0] | (at[1] << 8))); }

// Round to nearest (ties to even) by the float trick ggml uses: valid for |v| < 2^22.
int nearestInt(float v) {
    const float shifted = v + 12582912.f;
    int32_t i;
    std::memcpy(&i, &shifted, 4);
    return (i & 0x007fffff) - 0x00400000;
}

constexpr float kGroupMaxEps = 1e-15f;

// ---- the 32-element legacy blocks ----

void quantizeQ4_0(const float* x, uint8_t* y) {
    float amax = 0.f, max = 0.f;
    for (int j = 0; j < 32; ++j)
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    const float d = max / -8;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    storeHalf(y, d);
    for (int j = 0; j < 16; ++j) {
        const int q0 = std::min(15, static_cast<int>(x[j] * id + 8.5f));
        const int q1 = std::min(15, static_cast<int>(x[j + 16] * id + 8.5f));
        y[2 + j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
}

void quantizeQ4_1(const float* x, uint8_t* y) {
    float min = x[0], max = x[0];
    for (int j = 1; j < 32; ++j) {
        min = std::min(min, x[j]);
        max = std::max(max, x[j]);
    }
    const float d = (max - min) / 15;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    storeHalf(y, d);
    storeHalf(y + 2, min);
    for (int j = 0; j < 16; ++j) {
        const int q0 = std::min(15, static_cast<int>((x[j] - min) * id + 0.5f));
        const int q1 = std::min(15, static_cast<int>((x[j + 16] - min) * id + 0.5f));
        y[4 + j] = static_cast<uint8_t>(q0 | (q1 << 4));
    }
}

// q5_0 (symmetric, `min` unused) and q5_1 (with a minimum) share the 5th-bit packing.
void packFiveBits(const int* q, uint8_t* qh, uint8_t* qs) {
    uint32_t high = 0;
    for (int j = 0; j < 16; ++j) {
        qs[j] = static_cast<uint8_t>((q[j] & 0x0f) | ((q[j + 16] & 0x0f) << 4));
        high |= static_cast<uint32_t>((q[j] & 0x10) >> 4) << j;
        high |= static_cast<uint32_t>((q[j + 16] & 0x10) >> 4) << (j + 16);
    }
    for (int b = 0; b < 4; ++b) qh[b] = static_cast<uint8_t>(high >> (8 * b));
}

void quantizeQ5_0(const float* x, uint8_t* y) {
    float amax = 0.f, max = 0.f;
    for (int j = 0; j < 32; ++j)
        if (amax < std::fabs(x[j])) {
            amax = std::fabs(x[j]);
            max = x[j];
        }
    const float d = max / -16;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    storeHalf(y, d);
    int q[32];
    for (int j = 0; j < 32; ++j) q[j] = std::min(31, static_cast<int>(x[j] * id + 16.5f));
    packFiveBits(q, y + 2, y + 6);
}

void quantizeQ5_1(const float* x, uint8_t* y) {
    float min = x[0], max = x[0];
    for (int j = 1; j < 32; ++j) {
        min = std::min(min, x[j]);
        max = std::max(max, x[j]);
    }
    const float d = (max - min) / 31;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    storeHalf(y, d);
    storeHalf(y + 2, min);
    int q[32];
    for (int j = 0; j < 32; ++j) q[j] = static_cast<uint8_t>((x[j] - min) * id + 0.5f);
    packFiveBits(q, y + 4, y + 8);
}

void quantizeQ8_0(const float* x, uint8_t* y) {
    float amax = 0.f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127;
    const float id = d != 0.f ? 1.0f / d : 0.0f;
    storeHalf(y, d);
    for (int j = 0; j < 32; ++j) y[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::round(x[j] * id)));
}

// ---- k-quant helpers ----

// The best (scale, min) for n values at levels 0..nmax, weighted: a first guess from the range, then `steps`
// candidate scales around it, each refined by weighted least squares; the one with the least weighted squared
// error wins. Returns the scale; `*negMin` gets -min (>= 0). `levels` gets each value's level.
float fitScaleAndMin(int n, int nmax, const float* x, const float* weights, uint8_t* levels, float* negMin, float rmin,
                     float rdelta, int steps) {
    float min = x[0], max = x[0];
    float sumW = weights[0];
    float sumX = sumW * x[0];
    for (int i = 1; i < n; ++i) {
        if (x[i] < min) min = x[i];
        if (x[i] > max) max = x[i];
        const float w = weights[i];
        sumW += w;
        sumX += w * x[i];
    }
    if (min > 0) min = 0;
    if (max == min) {
        for (int i = 0; i < n; ++i) levels[i] = 0;
        *negMin = -min;
        return 0.f;
    }
    float iscale = nmax / (max - min);
    float scale = 1 / iscale;
    float bestError = 0;
    for (int i = 0; i < n; ++i) {
        const int l = std::clamp(nearestInt(iscale * (x[i] - min)), 0, nmax);
        levels[i] = static_cast<uint8_t>(l);
        const float diff = scale * levels[i] + min - x[i];
        bestError += weights[i] * (diff * diff);
    }
    uint8_t trial[32];
    for (int is = 0; is <= steps; ++is) {
        iscale = (rmin + rdelta * is + nmax) / (max - min);
        float sumL = 0, sumL2 = 0, sumXL = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearestInt(iscale * (x[i] - min)), 0, nmax);
            trial[i] = static_cast<uint8_t>(l);
            const float w = weights[i];
            sumL += w * l;
            sumL2 += w * l * l;
            sumXL += w * l * x[i];
        }
        const float det = sumW * sumL2 - sumL * sumL;
        if (det > 0) {
            float thisScale = (sumW * sumXL - sumX * sumL) / det;
            float thisMin = (sumL2 * sumX - sumL * sumXL) / det;
            if (thisMin > 0) {
                thisMin = 0;
                thisScale = sumXL / sumL2;
            }
            float error = 0;
            for (int i = 0; i < n; ++i) {
                const float diff = thisScale * trial[i] + thisMin - x[i];
                error += weights[i] * (diff * diff);
            }
            if (error < bestError) {
                std::memcpy(levels, trial, static_cast<size_t>(n));
                bestError = error;
                scale = thisScale;
                min = thisMin;
            }
        }
    }
    *negMin = -min;
    return scale;
}

// The best symmetric scale for n values at levels -nmax..nmax-1 (stored offset by nmax), weighted by x^2: 19
// candidate scales around -nmax/max, the one maximising sum(w x l)^2 / sum(w l^2) wins.
float fitSymmetricScale(int n, int nmax, const float* x, int8_t* levels) {
    float max = 0, amax = 0;
    for (int i = 0; i < n; ++i) {
        const float ax = std::fabs(x[i]);
        if (ax > amax) {
            amax = ax;
            max = x[i];
        }
    }
    if (amax < kGroupMaxEps) {
        for (int i = 0; i < n; ++i) levels[i] = 0;
        return 0.f;
    }
    float iscale = -nmax / max;
    float sumLX = 0, sumL2 = 0;
    for (int i = 0; i < n; ++i) {
        const int l = std::clamp(nearestInt(iscale * x[i]), -nmax, nmax - 1);
        levels[i] = static_cast<int8_t>(l + nmax);
        const float w = x[i] * x[i];
        sumLX += w * x[i] * l;
        sumL2 += w * l * l;
    }
    float scale = sumL2 != 0.f ? sumLX / sumL2 : 0.0f;
    float best = scale * sumLX;
    for (int is = -9; is <= 9; ++is) {
        if (is == 0) continue;
        iscale = -(nmax + 0.1f * is) / max;
        sumLX = sumL2 = 0;
        for (int i = 0; i < n; ++i) {
            const int l = std::clamp(nearestInt(iscale * x[i]), -nmax, nmax - 1);
            const float w = x[i] * x[i];
            sumLX += w * x[i] * l;
            sumL2 += w * l * l;
        }
        if (sumL2 > 0 && sumLX * sumLX > best * sumL2) {
            for (int i = 0; i < n; ++i)
                levels[i] = static_cast<int8_t>(nmax + std::clamp(nearestInt(iscale * x[i]), -nmax, nmax - 1));
            scale = sumLX / sumL2;
            best = scale * sumLX;
        }
    }
    return scale;
}

// Sub-block j's 6-bit scale and min from the 12 packed bytes of q4_K / q5_K.
void unpackScaleMin(int j, const uint8_t* packed, uint8_t* scale, uint8_t* min) {
    if (j < 4) {
        *scale = packed[j] & 63;
        *min = packed[j + 4] & 63;
    } else {
        *scale = static_cast<uint8_t>((packed[j + 4] & 0xf) | ((packed[j - 4] >> 6) << 4));
        *min = static_cast<uint8_t>((packed[j + 4] >> 4) | ((packed[j] >> 6) << 4));
    }
}

// q4_K and q5_K: eight sub-blocks of 32 with a fitted scale and min each, both quantized to 6 bits against the
// super-block's float16 d and dmin; then every value re-levelled against the quantized scale and min.
// Writes d, dmin, the 12 scale bytes at y, and the levels (0..nmax) to `levels`.
// `lanes`: the eight searches at once (kquant_lanes.h, the same bytes); else one after the other (the reference).
void quantizeScalesAndMins(const float* x, int nmax, float rmin, int steps, uint8_t* y, uint8_t* levels, bool lanes) {
    float scales[8], mins[8], weights[32];
    if (lanes) {
        fitScalesAndMinsLanes(x, nmax, rmin, 0.1f, steps, scales, mins, levels);
    } else {
        for (int j = 0; j < 8; ++j) {
            float sumX2 = 0;
            for (int l = 0; l < 32; ++l) sumX2 += x[32 * j + l] * x[32 * j + l];
            const float avX = std::sqrt(sumX2 / 32);
            for (int l = 0; l < 32; ++l) weights[l] = avX + std::fabs(x[32 * j + l]);
            scales[j] = fitScaleAndMin(32, nmax, x + 32 * j, weights, levels + 32 * j, &mins[j], rmin, 0.1f, steps);
        }
    }
    float maxScale = 0, maxMin = 0;
    for (int j = 0; j < 8; ++j) {
        if (scales[j] > maxScale) maxScale = scales[j];
        if (mins[j] > maxMin) maxMin = mins[j];
    }
    const float invScale = maxScale > 0 ? 63.f / maxScale : 0.f;
    const float invMin = maxMin > 0 ? 63.f / maxMin : 0.f;
    uint8_t* packed = y + 4;
    for (int j = 0; j < 8; ++j) {
        const uint8_t ls = std::min<uint8_t>(63, static_cast<uint8_t>(nearestInt(invScale * scales[j])));
        const uint8_t lm = std::min<uint8_t>(63, static_cast<uint8_t>(nearestInt(invMin * mins[j])));
        if (j < 4) {
            packed[j] = ls;
            packed[j + 4] = lm;
        } else {
            packed[j + 4] = static_cast<uint8_t>((ls & 0xf) | ((lm & 0xf) << 4));
            packed[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
            packed[j] |= static_cast<uint8_t>((lm >> 4) << 6);
        }
    }
    storeHalf(y, maxScale / 63.f);
    storeHalf(y + 2, maxMin / 63.f);
    const float d = loadHalf(y), dmin = loadHalf(y + 2);
    for (int j = 0; j < 8; ++j) {
        uint8_t sc, m;
        unpackScaleMin(j, packed, &sc, &m);
        const float ds = d * sc;
        if (ds == 0.f) continue;
        const float dm = dmin * m;
        for (int i = 0; i < 32; ++i)
            levels[32 * j + i] = static_cast<uint8_t>(std::clamp(nearestInt((x[32 * j + i] + dm) / ds), 0, nmax));
    }
}

void quantizeQ4_K(const float* x, uint8_t* y, bool lanes) {
    uint8_t levels[kSuperBlock];
    std::memset(y, 0, 144);
    quantizeScalesAndMins(x, 15, -1.f, 20, y, levels, lanes);
    uint8_t* qs = y + 16;
    for (int j = 0; j < kSuperBlock; j += 64, qs += 32)
        for (int l = 0; l < 32; ++l) qs[l] = static_cast<uint8_t>(levels[j + l] | (levels[j + l + 32] << 4));
}

void quantizeQ5_K(const float* x, uint8_t* y, bool lanes) {
    uint8_t levels[kSuperBlock];
    std::memset(y, 0, 176);
    quantizeScalesAndMins(x, 31, -0.5f, 15, y, levels, lanes);
    uint8_t* qh = y + 16;
    uint8_t* qs = y + 48;
    uint8_t bitLow = 1, bitHigh = 2;
    for (int n = 0; n < kSuperBlock; n += 64, qs += 32) {
        for (int j = 0; j < 32; ++j) {
            int l1 = levels[n + j], l2 = levels[n + j + 32];
            if (l1 > 15) {
                l1 -= 16;
                qh[j] |= bitLow;
            }
            if (l2 > 15) {
                l2 -= 16;
                qh[j] |= bitHigh;
            }
            qs[j] = static_cast<uint8_t>(l1 | (l2 << 4));
        }
        bitLow = static_cast<uint8_t>(bitLow << 2);
        bitHigh = static_cast<uint8_t>(bitHigh << 2);
    }
}

void quantizeQ6_K(const float* x, uint8_t* y, bool lanes) {
    int8_t levels[kSuperBlock];
    float scales[16];
    if (lanes)
        fitSymmetricScalesLanes(x, scales, levels);
    else
        for (int ib = 0; ib < 16; ++ib) scales[ib] = fitSymmetricScale(16, 32, x + 16 * ib, levels + 16 * ib);
    float maxScale = 0, maxAbsScale = 0;
    for (int ib = 0; ib < 16; ++ib) {
        if (std::fabs(scales[ib]) > maxAbsScale) {
            maxAbsScale = std::fabs(scales[ib]);
            maxScale = scales[ib];
        }
    }
    std::memset(y, 0, 210);
    uint8_t* ql = y;
    uint8_t* qh = y + 128;
    int8_t* sc = reinterpret_cast<int8_t*>(y + 192);
    uint8_t* dAt = y + 208;
    if (maxAbsScale < kGroupMaxEps) {
        storeHalf(dAt, 0.f);
        return;
    }
    const float iscale = -128.f / maxScale;
    storeHalf(dAt, 1 / iscale);
    for (int ib = 0; ib < 16; ++ib) sc[ib] = static_cast<int8_t>(std::min(127, nearestInt(iscale * scales[ib])));
    const float d = loadHalf(dAt);
    for (int j = 0; j < 16; ++j) {
        const float ds = d * sc[j];
        if (ds == 0.f) continue;
        for (int i = 0; i < 16; ++i)
            levels[16 * j + i] = static_cast<int8_t>(std::clamp(nearestInt(x[16 * j + i] / ds), -32, 31) + 32);
    }
    for (int j = 0; j < kSuperBlock; j += 128, ql += 64, qh += 32)
        for (int l = 0; l < 32; ++l) {
            const int q1 = levels[j + l], q2 = levels[j + l + 32], q3 = levels[j + l + 64], q4 = levels[j + l + 96];
            ql[l] = static_cast<uint8_t>((q1 & 0xf) | ((q3 & 0xf) << 4));
            ql[l + 32] = static_cast<uint8_t>((q2 & 0xf) | ((q4 & 0xf) << 4));
            qh[l] = static_cast<uint8_t>((q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6));
        }
}

// ---- decoding ----

void dequantizeBlock(GgmlType type, const uint8_t* b, float* y) {
    switch (type) {
        case GgmlType::Q4_0: {
            const float d = loadHalf(b);
            for (int j = 0; j < 16; ++j) {
                y[j] = static_cast<float>((b[2 + j] & 0xf) - 8) * d;
                y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
            }
            return;
        }
        case GgmlType::Q4_1: {
            const float d = loadHalf(b), m = loadHalf(b + 2);
            for (int j = 0; j < 16; ++j) {
                y[j] = static_cast<float>(b[4 + j] & 0xf) * d + m;
                y[j + 16] = static_cast<float>(b[4 + j] >> 4) * d + m;
            }
            return;
        }
        case GgmlType::Q5_0:
        case GgmlType::Q5_1: {
            const bool withMin = type == GgmlType::Q5_1;
            const float d = loadHalf(b), m = withMin ? loadHalf(b + 2) : 0.f;
            const uint8_t* qhAt = b + (withMin ? 4 : 2);
            const uint8_t* qs = qhAt + 4;
            const uint32_t qh = qhAt[0] | (qhAt[1] << 8) | (qhAt[2] << 16) | (static_cast<uint32_t>(qhAt[3]) << 24);
            for (int j = 0; j < 16; ++j) {
                const int q0 = (qs[j] & 0xf) | static_cast<int>(((qh >> j) << 4) & 0x10);
                const int q1 = (qs[j] >> 4) | static_cast<int>((qh >> (j + 12)) & 0x10);
                y[j] = withMin ? q0 * d + m : static_cast<float>(q0 - 16) * d;
                y[j + 16] = withMin ? q1 * d + m : static_cast<float>(q1 - 16) * d;
            }
            return;
        }
        case GgmlType::Q8_0: {
            const float d = loadHalf(b);
            for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
            return;
        }
        case GgmlType::Q4_K:
        case GgmlType::Q5_K: {
            const bool five = type == GgmlType::Q5_K;
            const float d = loadHalf(b), dmin = loadHalf(b + 2);
            const uint8_t* packed = b + 4;
            const uint8_t* qh = b + 16;
            const uint8_t* qs = b + (five ? 48 : 16);
            uint8_t bitLow = 1, bitHigh = 2;
            for (int j = 0, is = 0; j < kSuperBlock; j += 64, qs += 32, is += 2) {
                uint8_t sc, m;
                unpackScaleMin(is, packed, &sc, &m);
                const float d1 = d * sc, m1 = dmin * m;
                unpackScaleMin(is + 1, packed, &sc, &m);
                const float d2 = d * sc, m2 = dmin * m;
                for (int l = 0; l < 32; ++l) {
                    const int hi1 = five && (qh[l] & bitLow) ? 16 : 0;
                    const int hi2 = five && (qh[l] & bitHigh) ? 16 : 0;
                    y[j + l] = d1 * static_cast<float>((qs[l] & 0xf) + hi1) - m1;
                    y[j + l + 32] = d2 * static_cast<float>((qs[l] >> 4) + hi2) - m2;
                }
                bitLow = static_cast<uint8_t>(bitLow << 2);
                bitHigh = static_cast<uint8_t>(bitHigh << 2);
            }
            return;
        }
        case GgmlType::Q6_K: {
            const float d = loadHalf(b + 208);
            const uint8_t* ql = b;
            const uint8_t* qh = b + 128;
            const int8_t* sc = reinterpret_cast<const int8_t*>(b + 192);
            for (int n = 0; n < kSuperBlock; n += 128, ql += 64, qh += 32, sc += 8)
                for (int l = 0; l < 32; ++l) {
                    const int is = l / 16;
                    const int q1 = ((ql[l] & 0xf) | (((qh[l] >> 0) & 3) << 4)) - 32;
                    const int q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) - 32;
                    const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                    const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                    y[n + l] = d * sc[is] * q1;
                    y[n + l + 32] = d * sc[is + 2] * q2;
                    y[n + l + 64] = d * sc[is + 4] * q3;
                    y[n + l + 96] = d * sc[is + 6] * q4;
                }
            return;
        }
        default:
            throw std::logic_error("dequantizeBlock: not a block type");
    }
}

}  // namespace

// float16 is the project's one conversion (kernels/cpu/half_convert.h: round to nearest even, as ggml's).
uint16_t floatToHalf(float value) { return kernels::floatToFp16(value); }

float halfToFloat(uint16_t half) { return kernels::fp16ToFloat(half); }

// Not kernels::floatToBf16: a NaN keeps its upper bits with the quiet bit set, as gguf-py's converter writes it.
uint16_t floatToBfloat16(float value) {
    const uint32_t x = bitsOf(value);
    if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 64);  // NaN stays (quiet) NaN
    return static_cast<uint16_t>((x + (0x7fff + ((x >> 16) & 1))) >> 16);
}

float bfloat16ToFloat(uint16_t value) { return kernels::bf16ToFloat(value); }

namespace {

void quantizeRowWith(GgmlType type, const float* values, int64_t count, uint8_t* out, bool lanes) {
    const GgmlTypeTraits t = typeTraits(type);
    if (count % t.blockElements != 0)
        throw std::invalid_argument("quantizeRow: " + std::to_string(count) + " values is not a whole number of " +
                                    std::string(typeName(type)) + " blocks");
    switch (type) {
        case GgmlType::F32:
            std::memcpy(out, values, static_cast<size_t>(count) * 4);
            return;
        case GgmlType::F16:
        case GgmlType::BF16:
            for (int64_t i = 0; i < count; ++i) {
                const uint16_t h = type == GgmlType::F16 ? floatToHalf(values[i]) : floatToBfloat16(values[i]);
                out[2 * i] = static_cast<uint8_t>(h & 0xff);
                out[2 * i + 1] = static_cast<uint8_t>(h >> 8);
            }
            return;
        default:
            break;
    }
    for (int64_t b = 0; b < count / t.blockElements; ++b) {
        const float* x = values + b * t.blockElements;
        uint8_t* y = out + b * t.blockBytes;
        switch (type) {
            case GgmlType::Q4_0:
                quantizeQ4_0(x, y);
                break;
            case GgmlType::Q4_1:
                quantizeQ4_1(x, y);
                break;
            case GgmlType::Q5_0:
                quantizeQ5_0(x, y);
                break;
            case GgmlType::Q5_1:
                quantizeQ5_1(x, y);
                break;
            case GgmlType::Q8_0:
                quantizeQ8_0(x, y);
                break;
            case GgmlType::Q4_K:
                quantizeQ4_K(x, y, lanes);
                break;
            case GgmlType::Q5_K:
                quantizeQ5_K(x, y, lanes);
                break;
            default:
                quantizeQ6_K(x, y, lanes);
                break;
        }
    }
}

}  // namespace

void quantizeRow(GgmlType type, const float* values, int64_t count, uint8_t* out) {
    quantizeRowWith(type, values, count, out, true);
}

void quantizeRowOneBlockAtATime(GgmlType type, const float* values, int64_t count, uint8_t* out) {
    quantizeRowWith(type, values, count, out, false);
}

void dequantizeRow(GgmlType type, const uint8_t* in, int64_t count, float* out) {
    const GgmlTypeTraits t = typeTraits(type);
    if (count % t.blockElements != 0)
        throw std::invalid_argument("dequantizeRow: " + std::to_string(count) + " values is not a whole number of " +
                                    std::string(typeName(type)) + " blocks");
    switch (type) {
        case GgmlType::F32:
            std::memcpy(out, in, static_cast<size_t>(count) * 4);
            return;
        case GgmlType::F16:
        case GgmlType::BF16:
            for (int64_t i = 0; i < count; ++i) {
                const uint16_t h = static_cast<uint16_t>(in[2 * i] | (in[2 * i + 1] << 8));
                out[i] = type == GgmlType::F16 ? halfToFloat(h) : bfloat16ToFloat(h);
            }
            return;
        default:
            for (int64_t b = 0; b < count / t.blockElements; ++b)
                dequantizeBlock(type, in + b * t.blockBytes, out + b * t.blockElements);
    }
}

GgmlTypeTraits typeTraits(GgmlType type) {
    switch (type) {
        case GgmlType::F32:
            return {1, 4};
        case GgmlType::F16:
        case GgmlType::BF16:
            return {1, 2};
        case GgmlType::Q4_0:
            return {32, 18};
        case GgmlType::Q4_1:
            return {32, 20};
        case GgmlType::Q5_0:
            return {32, 22};
        case GgmlType::Q5_1:
            return {32, 24};
        case GgmlType::Q8_0:
            return {32, 34};
        case GgmlType::Q4_K:
            return {kSuperBlock, 144};
        case GgmlType::Q5_K:
            return {kSuperBlock, 176};
        case GgmlType::Q6_K:
            return {kSuperBlock, 210};
    }
    throw std::logic_error("typeTraits: unknown GGML type");
}

std::string_view typeName(GgmlType type) {
    switch (type) {
        case GgmlType::F32:
            return "F32";
        case GgmlType::F16:
            return "F16";
        case GgmlType::BF16:
            return "BF16";
        case GgmlType::Q4_0:
            return "Q4_0";
        case GgmlType::Q4_1:
            return "Q4_1";
        case GgmlType::Q5_0:
            return "Q5_0";
        case GgmlType::Q5_1:
            return "Q5_1";
        case GgmlType::Q8_0:
            return "Q8_0";
        case GgmlType::Q4_K:
            return "Q4_K";
        case GgmlType::Q5_K:
            return "Q5_K";
        case GgmlType::Q6_K:
            return "Q6_K";
    }
    return "?";
}

size_t rowBytes(GgmlType type, int64_t elements) {
    const GgmlTypeTraits t = typeTraits(type);
    return static_cast<size_t>(elements / t.blockElements) * static_cast<size_t>(t.blockBytes);
}

}  // namespace fts::gguf
