// The 4-bit dequantization with AVX-512F (compiled with -mavx512f, called only where the CPU has it): sixteen values
// from eight bytes, their codes spread to 32-bit lanes (each byte twice, shifted by 4 or 0), looked up in the
// 16-value codebook with one permute, times the block's absmax: one multiplication per value, as the scalar loop.
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/bnb4bit.h"

namespace fts::kernels::bnb4bit_detail {

void dequantizeAvx512(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, const float* lut,
                      float* out) {
    if (blocksize % 16 != 0) return dequantizeAvx2(packed, absmax, n, blocksize, lut, out);
    const __m512 book = _mm512_loadu_ps(lut);
    const __m128i twice = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512i shifts = _mm512_setr_epi32(4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0);
    const __m512i nibble = _mm512_set1_epi32(15);
    const int64_t whole = n / blocksize * blocksize;
    for (int64_t start = 0; start < whole; start += blocksize) {
        const __m512 scale = _mm512_set1_ps(absmax[start / blocksize]);
        for (int64_t i = start; i < start + blocksize; i += 16) {
            int64_t word;
            std::memcpy(&word, packed + i / 2, 8);
            const __m512i bytes = _mm512_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi64_si128(word), twice));
            const __m512i code = _mm512_and_si512(_mm512_srlv_epi32(bytes, shifts), nibble);
            _mm512_storeu_ps(out + i, _mm512_mul_ps(_mm512_permutexvar_ps(code, book), scale));
        }
    }
    dequantizeScalarFrom(packed, absmax, whole, n, blocksize, lut, out);
}

}  // namespace fts::kernels::bnb4bit_detail
