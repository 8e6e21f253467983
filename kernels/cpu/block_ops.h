// Fused CPU loops for the element-wise parts of a Llama-family block in float32: RMSNorm and the rotary embedding,
// forward and backward, each one pass over memory. Plain pointers; the caller parallelises
// over rows. Invariant: the forwards round exactly as transformers' op-by-op formulas do (same operation order in
// float32); the backwards are the closed-form gradients of those formulas.
#pragma once
#include <cstdint>

namespace fts::kernels {

// RMSNorm of `rows` rows of width n: rstd = 1 / sqrt(mean(x^2) + eps), y = w * (x * rstd). Writes y and rstd (one
// float per row, kept for the backward).
void rmsNormForwardRows(const float* x, const float* w, float eps, int64_t rows, int64_t n, float* y, float* rstd);

// Its backward for the same rows: g = dy * w, xhat = x * rstd, dx = rstd * (g - xhat * mean(g * xhat)). When
// dwPartial is not null, adds sum over the rows of dy * xhat into it (n floats).
void rmsNormBackwardRows(const float* dy, const float* x, const float* w, const float* rstd, int64_t rows, int64_t n,
                         float* dx, float* dwPartial);

// Rotary embedding of one row of width d (even): y = x * c + rotate_half(x) * s, rotate_half(x) = cat(-x2, x1).
void ropeForwardRow(const float* x, const float* c, const float* s, int64_t d, float* y);

// Its backward (the transposed rotation): dx = dy * c + rotate_half^T(dy * s).
void ropeBackwardRow(const float* dy, const float* c, const float* s, int64_t d, float* dx);

}  // namespace fts::kernels
