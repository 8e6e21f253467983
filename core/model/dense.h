// Dense layers (nn.Linear and HF's Conv1D) with the CPU float32 matrix products sent to oneDNN's matmul instead of
// the BLAS LibTorch's addmm picks (MKL): on CPUs where MKL does not take its AVX-512 path (AMD's, measured 2-3x
// slower here, docs/models.md) oneDNN's JIT kernels do. Invariant: same values as torch::linear/addmm up to float32
// summation order; other dtypes, devices and autocast regions go to LibTorch's own ops.
#pragma once
#include "core/model/hf_model.h"

namespace fts {

// x @ weight^T + bias, weight (out, in) as nn.Linear; bias may be undefined.
torch::Tensor denseLinear(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias = {});

// x @ weight + bias, weight (in, out) as transformers' Conv1D (GPT-2); bias may be undefined.
torch::Tensor denseConv1d(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

// Whether CPU float32 products use oneDNN (default yes where it runs; FTS_CPU_GEMM=libtorch turns it off, for the
// side-by-side benchmark and for bisecting). Enabling has no effect where oneDnnGemmAvailable() is false.
bool oneDnnGemmEnabled();
void setOneDnnGemmEnabled(bool on);
// Whether LibTorch's oneDNN matmul runs on this CPU (LibTorch 2.11 refuses CPUs without AVX-512 BW/VL/DQ or
// AVX-NE-CONVERT); without it the products go to LibTorch's own ops.
bool oneDnnGemmAvailable();

}  // namespace fts
