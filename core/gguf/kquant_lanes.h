// The k-quants' scale searches (most of a q4_K / q5_K / q6_K export's time) run on eight sub-blocks at once: each
// SIMD lane is one sub-block and does exactly the float operations, in exactly the order, of the one-sub-block
// search in block_quantize.cpp (llama.cpp's make_qkx2_quants / make_qx_quants), so the bytes do not change.
// Built for AVX2 and for the x86-64 baseline, chosen at run time by the CPU; tests/core/gguf compares both to the
// scalar search bit for bit.
#pragma once
#include <cstdint>

namespace fts::gguf {

// q4_K (nmax 15, rmin -1, 20 steps) and q5_K (31, -0.5, 15): the eight 32-value sub-blocks of a 256-value
// super-block, weighted by |x| + rms(sub-block). Writes each sub-block's scale, -min and the 256 levels.
void fitScalesAndMinsLanes(const float* x, int nmax, float rmin, float rdelta, int steps, float* scales, float* negMins,
                           uint8_t* levels);

// q6_K: the sixteen 16-value sub-blocks of a super-block, levels -32..31 stored + 32, weighted by x^2.
void fitSymmetricScalesLanes(const float* x, float* scales, int8_t* levels);

// Tests: run the baseline (non-AVX2) form even where the CPU has AVX2.
void forceBaselineLanes(bool baseline);

}  // namespace fts::gguf
