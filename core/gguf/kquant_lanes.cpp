// Lane-parallel k-quant scale searches (see kquant_lanes.h), in GCC vector extensions: F8 is eight floats, one per
// sub-block; every sum runs over a sub-block's values in order, as the scalar search adds them. Data is transposed
// to [value][lane] first so a lane's values are a vector's element.
#include "core/gguf/kquant_lanes.h"

#include <cmath>
#include <cstring>

namespace fts::gguf {
namespace {

typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));

#define FTS_LANES_INLINE inline __attribute__((always_inline))

FTS_LANES_INLINE F8 splat(float v) { return F8{v, v, v, v, v, v, v, v}; }
FTS_LANES_INLINE I8 splatI(int32_t v) { return I8{v, v, v, v, v, v, v, v}; }

// ggml's nearest_int per lane: v + 1.5 * 2^23, the integer in the mantissa.
FTS_LANES_INLINE I8 nearestInt(F8 v) {
    const F8 shifted = v + splat(12582912.f);
    I8 bits;
    std::memcpy(&bits, &shifted, sizeof bits);
    return (bits & splatI(0x007fffff)) - splatI(0x00400000);
}

FTS_LANES_INLINE I8 clampI(I8 v, int32_t lo, int32_t hi) {
    v = v < splatI(lo) ? splatI(lo) : v;
    return v > splatI(hi) ? splatI(hi) : v;
}

FTS_LANES_INLINE F8 toFloat(I8 v) { return __builtin_convertvector(v, F8); }

FTS_LANES_INLINE F8 absF(F8 v) {
    I8 bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits &= splatI(0x7fffffff);
    F8 out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
}

}  // namespace

namespace {

FTS_LANES_INLINE void scalesAndMins(const float* x, int nmax, float rmin, float rdelta, int steps, float* scales,
                                    float* negMins, uint8_t* levels) {
    F8 xt[32], wt[32];  // [value][sub-block]
    for (int i = 0; i < 32; ++i)
        for (int j = 0; j < 8; ++j) xt[i][j] = x[32 * j + i];
    // weights: |x| + the sub-block's root mean square
    F8 sumX2 = splat(0);
    for (int i = 0; i < 32; ++i) sumX2 += xt[i] * xt[i];
    F8 avX;
    for (int j = 0; j < 8; ++j) avX[j] = std::sqrt(sumX2[j] / 32);
    for (int i = 0; i < 32; ++i) wt[i] = avX + absF(xt[i]);

    F8 min = xt[0], max = xt[0];
    F8 sumW = wt[0];
    F8 sumX = sumW * xt[0];
    for (int i = 1; i < 32; ++i) {
        min = xt[i] < min ? xt[i] : min;
        max = xt[i] > max ? xt[i] : max;
        sumW += wt[i];
        sumX += wt[i] * xt[i];
    }
    min = min > splat(0) ? splat(0) : min;
    const I8 flat = max == min;  // all values equal: levels 0, scale 0

    F8 iscale = splat(static_cast<float>(nmax)) / (max - min);
    F8 scale = splat(1) / iscale;
    F8 bestError = splat(0);
    I8 best[32];
    for (int i = 0; i < 32; ++i) {
        best[i] = clampI(nearestInt(iscale * (xt[i] - min)), 0, nmax);
        const F8 diff = scale * toFloat(best[i]) + min - xt[i];
        bestError += wt[i] * (diff * diff);
    }
    for (int is = 0; is <= steps; ++is) {
        const float numerator = rmin + rdelta * is + nmax;
        iscale = splat(numerator) / (max - min);
        F8 sumL = splat(0), sumL2 = splat(0), sumXL = splat(0);
        I8 trial[32];
        for (int i = 0; i < 32; ++i) {
            trial[i] = clampI(nearestInt(iscale * (xt[i] - min)), 0, nmax);
            const F8 l = toFloat(trial[i]);
            const F8 wl = wt[i] * l;
            sumL += wl;
            sumL2 += wl * l;
            sumXL += wl * xt[i];
        }
        const F8 det = sumW * sumL2 - sumL * sumL;
        const I8 solvable = det > splat(0);
        F8 thisScale = (sumW * sumXL - sumX * sumL) / det;
        F8 thisMin = (sumL2 * sumX - sumL * sumXL) / det;
        const I8 positiveMin = thisMin > splat(0);
        thisScale = positiveMin ? sumXL / sumL2 : thisScale;
        thisMin = positiveMin ? splat(0) : thisMin;
        F8 error = splat(0);
        for (int i = 0; i < 32; ++i) {
            const F8 diff = thisScale * toFloat(trial[i]) + thisMin - xt[i];
            error += wt[i] * (diff * diff);
        }
        const I8 better = solvable & (error < bestError);
        for (int i = 0; i < 32; ++i) best[i] = better ? trial[i] : best[i];
        bestError = better ? error : bestError;
        scale = better ? thisScale : scale;
        min = better ? thisMin : min;
    }
    for (int j = 0; j < 8; ++j) {
        if (flat[j]) {
            scales[j] = 0.f;
            negMins[j] = -min[j];
            for (int i = 0; i < 32; ++i) levels[32 * j + i] = 0;
            continue;
        }
        scales[j] = scale[j];
        negMins[j] = -min[j];
        for (int i = 0; i < 32; ++i) levels[32 * j + i] = static_cast<uint8_t>(best[i][j]);
    }
}

FTS_LANES_INLINE void symmetricScales(const float* x, float* scales, int8_t* levels) {
    constexpr int kNmax = 32;
    for (int half = 0; half < 2; ++half) {  // sub-blocks 8*half .. 8*half+7
        const float* base = x + 128 * half;
        F8 xt[16];
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j) xt[i][j] = base[16 * j + i];
        F8 max = splat(0), amax = splat(0);
        for (int i = 0; i < 16; ++i) {
            const F8 ax = absF(xt[i]);
            const I8 larger = ax > amax;
            amax = larger ? ax : amax;
            max = larger ? xt[i] : max;
        }
        const I8 zero = amax < splat(1e-15f);
        F8 iscale = splat(static_cast<float>(-kNmax)) / max;
        F8 sumLX = splat(0), sumL2 = splat(0);
        I8 best[16];
        for (int i = 0; i < 16; ++i) {
            const I8 l = clampI(nearestInt(iscale * xt[i]), -kNmax, kNmax - 1);
            best[i] = l + splatI(kNmax);
            const F8 w = xt[i] * xt[i];
            const F8 lf = toFloat(l);
            sumLX += w * xt[i] * lf;
            sumL2 += w * lf * lf;
        }
        F8 scale = sumL2 != splat(0) ? sumLX / sumL2 : splat(0);
        F8 bestValue = scale * sumLX;
        for (int is = -9; is <= 9; ++is) {
            if (is == 0) continue;
            const float numerator = -(kNmax + 0.1f * is);
            iscale = splat(numerator) / max;
            sumLX = splat(0);
            sumL2 = splat(0);
            I8 trial[16];
            for (int i = 0; i < 16; ++i) {
                const I8 l = clampI(nearestInt(iscale * xt[i]), -kNmax, kNmax - 1);
                trial[i] = l + splatI(kNmax);
                const F8 w = xt[i] * xt[i];
                const F8 lf = toFloat(l);
                sumLX += w * xt[i] * lf;
                sumL2 += w * lf * lf;
            }
            const I8 better = (sumL2 > splat(0)) & (sumLX * sumLX > bestValue * sumL2);
            for (int i = 0; i < 16; ++i) best[i] = better ? trial[i] : best[i];
            const F8 newScale = sumLX / sumL2;
            scale = better ? newScale : scale;
            bestValue = better ? newScale * sumLX : bestValue;
        }
        for (int j = 0; j < 8; ++j) {
            const int sub = 8 * half + j;
            scales[sub] = zero[j] ? 0.f : scale[j];
            for (int i = 0; i < 16; ++i) levels[16 * sub + i] = zero[j] ? 0 : static_cast<int8_t>(best[i][j]);
        }
    }
}

// The same code for two instruction sets: AVX2 (eight lanes in one register) and the x86-64 baseline (two SSE
// registers), chosen once by the CPU.
__attribute__((target("avx2"))) void scalesAndMinsAvx2(const float* x, int nmax, float rmin, float rdelta, int steps,
                                                       float* scales, float* negMins, uint8_t* levels) {
    scalesAndMins(x, nmax, rmin, rdelta, steps, scales, negMins, levels);
}
void scalesAndMinsBaseline(const float* x, int nmax, float rmin, float rdelta, int steps, float* scales, float* negMins,
                           uint8_t* levels) {
    scalesAndMins(x, nmax, rmin, rdelta, steps, scales, negMins, levels);
}
__attribute__((target("avx2"))) void symmetricScalesAvx2(const float* x, float* scales, int8_t* levels) {
    symmetricScales(x, scales, levels);
}
void symmetricScalesBaseline(const float* x, float* scales, int8_t* levels) { symmetricScales(x, scales, levels); }

bool g_forceBaseline = false;

bool useAvx2() {
    static const bool avx2 = __builtin_cpu_supports("avx2");
    return avx2 && !g_forceBaseline;
}

}  // namespace

void fitScalesAndMinsLanes(const float* x, int nmax, float rmin, float rdelta, int steps, float* scales, float* negMins,
                           uint8_t* levels) {
    if (useAvx2())
        scalesAndMinsAvx2(x, nmax, rmin, rdelta, steps, scales, negMins, levels);
    else
        scalesAndMinsBaseline(x, nmax, rmin, rdelta, steps, scales, negMins, levels);
}

void fitSymmetricScalesLanes(const float* x, float* scales, int8_t* levels) {
    if (useAvx2())
        symmetricScalesAvx2(x, scales, levels);
    else
        symmetricScalesBaseline(x, scales, levels);
}

void forceBaselineLanes(bool baseline) { g_forceBaseline = baseline; }

}  // namespace fts::gguf
