// Fused CUDA kernels for the element-wise parts of a Llama-family block: RMSNorm, the rotary embedding and SwiGLU
// (silu(gate) * up), forward and backward, each one pass over memory instead of LibTorch's five to twelve kernels.
// Rounding follows transformers' op-by-op formulas in the tensors' dtypes (every intermediate that PyTorch rounds to
// bfloat16 / float16 is rounded here too), so RoPE and SwiGLU equal the ATen composition bit for bit and RMSNorm up
// to float32 rounding of its row sum; the backwards are the closed-form gradients in float32, rounded once.
// References: the ATen compositions in core/model/block_ops.cpp and kernels/cpu/block_ops.h.
#pragma once
#include <cstdint>

#include "kernels/kernel_types.h"

namespace fts::kernels {

// y = w * cast_x(x * rstd), rstd = rsqrt(mean(x^2) + eps) in float32; `rows` rows of width n, contiguous.
// Dtypes (x, w -> y): all three equal, or w float32 with y float32. Writes rstd (float32, one per row).
void rmsNormForwardCuda(const void* x, DType xType, const void* w, DType wType, void* y, float* rstd, int64_t rows,
                        int64_t n, float eps, cudaStream_t stream);

// Its backward: dx (x's dtype) and, when dwPartial is not null, partial weight-gradient sums (float32,
// `partialRows` x n, zeroed by the caller; their column sums are dw). partialRows: rmsNormPartialRows(rows).
void rmsNormBackwardCuda(const void* dy, const void* x, DType xType, const void* w, DType wType, const float* rstd,
                         void* dx, float* dwPartial, int64_t rows, int64_t n, cudaStream_t stream);
int64_t rmsNormPartialRows(int64_t rows);

// The rotary embedding of x (B, H, T, D), D even, strides xStride for (B, H, T) and unit along D, into y (its own
// strides) with tables c, s contiguous (T, D) or (B, T, D) when perSequence, all of one dtype:
// y = x * c + rotate_half(x) * s. backward: x is dy, y is dx (dx = dy * c + rotate_half^T(dy * s)).
struct RopeShape {
    int64_t B = 0, H = 0, T = 0, D = 0;
    int64_t xStride[3] = {0, 0, 0};
    int64_t yStride[3] = {0, 0, 0};
    bool perSequence = false;
};
void ropeCuda(const void* x, const void* c, const void* s, void* y, DType type, const RopeShape& shape, bool backward,
              cudaStream_t stream);

// SwiGLU on contiguous tensors of `count` elements of one dtype: out = silu(gate) * up; backward writes dGate and
// dUp from dOut.
void siluMulForwardCuda(const void* gate, const void* up, void* out, DType type, int64_t count, cudaStream_t stream);
void siluMulBackwardCuda(const void* dOut, const void* gate, const void* up, void* dGate, void* dUp, DType type,
                         int64_t count, cudaStream_t stream);

}  // namespace fts::kernels
