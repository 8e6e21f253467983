// Fused gradient unscale + overflow check on CUDA, one pass over a list of fp32/bf16/fp16 tensors: x *= invScale
// (float32 arithmetic, rounded back to the dtype), and *foundInf = 1 when some x was inf/NaN before scaling
// (LibTorch's _amp_foreach_non_finite_check_and_unscale_ semantics; reference: kernels/cpu/unscale_reference.h).
#pragma once
#include <cstddef>

#include "kernels/kernel_types.h"

namespace fts::kernels {

// foundInf: a device float the caller zeroed; it is only ever set to 1. Asynchronous on `stream`. Throws
// KernelError on a launch failure or in a build without CUDA.
void unscaleCuda(const GradTensor* tensors, size_t count, float invScale, float* foundInf, cudaStream_t stream);

}  // namespace fts::kernels
