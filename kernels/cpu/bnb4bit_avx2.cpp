// The 4-bit dequantization with AVX2 (compiled with -mavx2, called only where the CPU has it): eight values from four
// bytes, their codes spread to 32-bit lanes (each byte twice, shifted by 4 or 0), looked up in the 16-value codebook
// as two 8-value permutes and a blend on the code's top bit, times the block's absmax: one multiplication per value,
// as the scalar loop (bnb4bit.h).
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/bnb4bit.h"

namespace fts::kernels::bnb4bit_detail {

void dequantizeAvx2(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, const float* lut,
                    float* out) {
    if (blocksize % 8 != 0) return dequantizeScalarFrom(packed, absmax, 0, n, blocksize, lut, out);
    const __m256 low = _mm256_loadu_ps(lut), high = _mm256_loadu_ps(lut + 8);
    const __m128i twice = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i shifts = _mm256_setr_epi32(4, 0, 4, 0, 4, 0, 4, 0);
    const __m256i nibble = _mm256_set1_epi32(15);
    const int64_t whole = n / blocksize * blocksize;  // the full blocks; the last partial one goes one by one
    for (int64_t start = 0; start < whole; start += blocksize) {
        const __m256 scale = _mm256_set1_ps(absmax[start / blocksize]);
        for (int64_t i = start; i < start + blocksize; i += 8) {
            int32_t word;
            std::memcpy(&word, packed + i / 2, 4);
            const __m256i bytes = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128(word), twice));
            const __m256i code = _mm256_and_si256(_mm256_srlv_epi32(bytes, shifts), nibble);
            const __m256 value =
                _mm256_blendv_ps(_mm256_permutevar8x32_ps(low, code), _mm256_permutevar8x32_ps(high, code),
                                 _mm256_castsi256_ps(_mm256_slli_epi32(code, 28)));
            _mm256_storeu_ps(out + i, _mm256_mul_ps(value, scale));
        }
    }
    dequantizeScalarFrom(packed, absmax, whole, n, blocksize, lut, out);
}

}  // namespace fts::kernels::bnb4bit_detail
