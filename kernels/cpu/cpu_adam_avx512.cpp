// CPU-Adam, AVX-512F variant (16 floats per vector); built with -mavx512f, run only when
// cpuIsaSupported(CpuIsa::Avx512). The operations are cpu_adam.cpp's scalar reference, lane by lane; the tail
// (fewer than 16 elements) goes through the reference itself.
#include <immintrin.h>

#include "kernels/cpu/cpu_adam.h"

namespace fts::kernels::cpu_adam_detail {
namespace {

inline __m512 loadGrad(const void* g, DType t, int64_t i) {
    const auto* h = reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(g) + i);
    switch (t) {
        case DType::Float32:
            return _mm512_loadu_ps(static_cast<const float*>(g) + i);
        case DType::BFloat16:
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(h)), 16));
        default:
            return _mm512_cvtph_ps(_mm256_loadu_si256(h));
    }
}

// Round to nearest even, NaN -> 0x7fc0 (half_convert.h's floatToBf16).
inline __m256i toBf16(__m512 p) {
    const __m512i u = _mm512_castps_si512(p);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7fff))), 16);
    r = _mm512_mask_blend_epi32(_mm512_cmp_ps_mask(p, p, _CMP_UNORD_Q), r, _mm512_set1_epi32(0x7fc0));
    return _mm512_cvtepi32_epi16(r);
}

inline void storeOut(void* out, DType t, int64_t i, __m512 p) {
    auto* h = reinterpret_cast<__m256i*>(static_cast<uint16_t*>(out) + i);
    switch (t) {
        case DType::Float32:
            _mm512_storeu_ps(static_cast<float*>(out) + i, p);
            break;
        case DType::BFloat16:
            _mm256_storeu_si256(h, toBf16(p));
            break;
        case DType::Float16:
            _mm256_storeu_si256(h, _mm512_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            break;
    }
}

}  // namespace

void rangeAvx512(const CpuAdamBuffers& b, const CpuAdamScalars& s, int64_t begin, int64_t end) {
    const __m512 beta1 = _mm512_set1_ps(s.beta1), beta2 = _mm512_set1_ps(s.beta2);
    const __m512 omb1 = _mm512_set1_ps(s.oneMinusBeta1), omb2 = _mm512_set1_ps(s.oneMinusBeta2);
    const __m512 stepSize = _mm512_set1_ps(s.stepSize), bc2 = _mm512_set1_ps(s.bc2), eps = _mm512_set1_ps(s.eps);
    const __m512 decay = _mm512_set1_ps(s.decay), scale = _mm512_set1_ps(s.gradScale);
    const bool l2 = s.applyDecay && !s.adamW, decoupled = s.applyDecay && s.adamW;
    // One vector of 16 elements at i; the main loop runs 8 of them per iteration (DeepSpeed's span).
    auto vec = [&](int64_t i) __attribute__((always_inline)) {
        __m512 g = loadGrad(b.grad, b.gradType, i);
        if (s.scaleGrad) g = _mm512_mul_ps(g, scale);
        __m512 p = _mm512_loadu_ps(b.master + i);
        if (l2) g = _mm512_fmadd_ps(p, decay, g);
        __m512 m = _mm512_mul_ps(_mm512_loadu_ps(b.expAvg + i), beta1);
        m = _mm512_fmadd_ps(g, omb1, m);
        __m512 v = _mm512_mul_ps(_mm512_loadu_ps(b.expAvgSq + i), beta2);
        v = _mm512_fmadd_ps(_mm512_mul_ps(g, g), omb2, v);
        const __m512 u = _mm512_div_ps(m, _mm512_fmadd_ps(_mm512_sqrt_ps(v), bc2, eps));
        if (decoupled) p = _mm512_fmadd_ps(p, decay, p);
        p = _mm512_fmadd_ps(u, stepSize, p);
        _mm512_storeu_ps(b.master + i, p);
        _mm512_storeu_ps(b.expAvg + i, m);
        _mm512_storeu_ps(b.expAvgSq + i, v);
        if (b.paramOut) storeOut(b.paramOut, b.outType, i, p);
    };
    int64_t i = begin;
    for (; i + 128 <= end; i += 128)
        for (int k = 0; k < 128; k += 16) vec(i + k);
    for (; i + 16 <= end; i += 16) vec(i);
    if (i < end) rangeScalar(b, s, i, end);
}

}  // namespace fts::kernels::cpu_adam_detail
