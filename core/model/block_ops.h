// RMSNorm, the rotary embedding and SwiGLU of the Llama family as transformers computes them, with fused kernels
// behind custom autograd functions: CPU float32 (kernels/cpu/block_ops.h) and CUDA float32 / bfloat16 / float16
// (kernels/cuda/block_ops.cuh); other devices and dtypes compose ATen ops in transformers' order. Invariant: the
// paths give the same values up to float32 rounding of the reductions (RoPE and SwiGLU's forward: identical).
#pragma once
#include "core/model/hf_model.h"

namespace fts {

// weight * (x * rsqrt(mean(x^2, -1) + eps)), the variance in float32 and the normalised value cast back to x's
// dtype before the weight (transformers' LlamaRMSNorm).
torch::Tensor rmsNorm(const torch::Tensor& x, const torch::Tensor& weight, double eps);

// x * cos + rotate_half(x) * sin, x (B, H, T, D) in any layout with cos/sin (T, D) or (B, 1, T, D); computed in x's
// dtype (cos/sin are cast to it).
torch::Tensor applyRope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin);

// silu(gate) * up (the gated MLP's activation), rounded as the two ATen ops round; the fused CUDA path keeps only
// gate and up for the backward (silu(gate) is recomputed), one (tokens x intermediate) tensor less per layer.
torch::Tensor siluMul(const torch::Tensor& gate, const torch::Tensor& up);

// Whether the fused kernels (CPU and CUDA) are used where they apply (default yes; FTS_FUSED_BLOCK_OPS=0 turns them
// off, for the side-by-side benchmark and for bisecting).
bool fusedBlockOpsEnabled();
void setFusedBlockOpsEnabled(bool on);

}  // namespace fts
