// CPU-Adam, AVX2 + FMA + F16C variant (8 floats per vector); built with those flags, run only when
// cpuIsaSupported(CpuIsa::Avx2). The operations are cpu_adam.cpp's scalar reference, lane by lane; the tail
// (fewer than 8 elements) goes through the reference itself.
#include <immintrin.h>

#include "kernels/cpu/cpu_adam.h"

namespace fts::kernels::cpu_adam_detail {
namespace {

inline __m256 loadGrad(const void* g, DType t, int64_t i) {
    switch (t) {
        case DType::Float32:
            return _mm256_loadu_ps(static_cast<const float*>(g) + i);
        case DType::BFloat16: {
            const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(g) + i));
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
        }
        default:
            return _mm256_cvtph_ps(
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(g) + i)));
    }
}

// Round to nearest even, NaN -> 0x7fc0 (half_convert.h's floatToBf16).
inline __m128i toBf16(__m256 p) {
    const __m256i u = _mm256_castps_si256(p);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(lsb, _mm256_set1_epi32(0x7fff))), 16);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(p, p, _CMP_UNORD_Q));
    r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7fc0), nan);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);  // lanes 0..3, 4..7
    return _mm256_castsi256_si128(packed);
}

inline void storeOut(void* out, DType t, int64_t i, __m256 p) {
    switch (t) {
        case DType::Float32:
            _mm256_storeu_ps(static_cast<float*>(out) + i, p);
            break;
        case DType::BFloat16:
            _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(out) + i), toBf16(p));
            break;
        case DType::Float16:
            _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(out) + i),
                             _mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            break;
    }
}

}  // namespace

void rangeAvx2(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end) {
    const __m256 beta1 = _mm256_set1_ps(s.beta1), beta2 = _mm256_set1_ps(s.beta2);
    const __m256 omb1 = _mm256_set1_ps(s.oneMinusBeta1), omb2 = _mm256_set1_ps(s.oneMinusBeta2);
    const __m256 stepSize = _mm256_set1_ps(s.stepSize), bc2 = _mm256_set1_ps(s.bc2), eps = _mm256_set1_ps(s.eps);
    const __m256 decay = _mm256_set1_ps(s.decay), scale = _mm256_set1_ps(s.gradScale);
    const bool l2 = s.applyDecay && !s.adamW, decoupled = s.applyDecay && s.adamW;
    // One vector of 8 elements at i; the main loop runs 8 of them per iteration (as DeepSpeed runs 8 per span): more
    // independent loads in flight per iteration, which is what a memory-bound step needs.
    auto vec = [&](int64_t i) __attribute__((always_inline)) {
        __m256 g = loadGrad(b.grad, b.gradType, i);
        if (s.scaleGrad) g = _mm256_mul_ps(g, scale);
        __m256 p = _mm256_loadu_ps(b.master + i);
        if (l2) g = _mm256_fmadd_ps(p, decay, g);
        __m256 m = _mm256_mul_ps(_mm256_loadu_ps(b.expAvg + i), beta1);
        m = _mm256_fmadd_ps(g, omb1, m);
        __m256 v = _mm256_mul_ps(_mm256_loadu_ps(b.expAvgSq + i), beta2);
        v = _mm256_fmadd_ps(_mm256_mul_ps(g, g), omb2, v);
        const __m256 u = _mm256_div_ps(m, _mm256_fmadd_ps(_mm256_sqrt_ps(v), bc2, eps));
        if (decoupled) p = _mm256_fmadd_ps(p, decay, p);
        p = _mm256_fmadd_ps(u, stepSize, p);
        _mm256_storeu_ps(b.master + i, p);
        _mm256_storeu_ps(b.expAvg + i, m);
        _mm256_storeu_ps(b.expAvgSq + i, v);
        if (b.paramOut) storeOut(b.paramOut, b.outType, i, p);
    };
    int64_t i = begin;
    for (; i + 64 <= end; i += 64)
        for (int k = 0; k < 64; k += 8) vec(i + k);
    for (; i + 8 <= end; i += 8) vec(i);
    if (i < end) rangeScalar(b, s, i, end);
}

}  // namespace fts::kernels::cpu_adam_detail
