// RMSNorm and the rotary embedding of the Llama family as transformers computes them, with fused CPU float32
// kernels (kernels/cpu/block_ops.h) behind custom autograd functions; other devices and dtypes compose ATen ops in
// transformers' order. Invariant: both paths give the same values up to float32 rounding of the reductions.
#pragma once
#include "core/model/hf_model.h"

namespace fts {

// weight * (x * rsqrt(mean(x^2, -1) + eps)), the variance in float32 and the normalised value cast back to x's
// dtype before the weight (transformers' LlamaRMSNorm).
torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps);

// x * cos + rotate_half(x) * sin, x (B, H, T, D) in any layout with cos/sin (T, D) or (B, 1, T, D); computed in x's
// dtype (cos/sin are cast to it).
torch::Tensor applyRope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

// Whether the fused CPU kernels are used where they apply (default yes; FTS_FUSED_BLOCK_OPS=0 turns them off, for
// the side-by-side benchmark and for bisecting).
bool fusedBlockOpsEnabled();
void setFusedBlockOpsEnabled(bool on);

}  // namespace fts
