// Fused multi-tensor AdamW / Adam-L2 on CUDA: fp32 master parameters and moments, fp32/bf16/fp16 gradients, every
// tensor of a list updated by one launch per ~300 chunks of 64Ki elements. Same float32 arithmetic as the scalar
// reference kernels/cpu/adamw_reference.h (FMA contraction aside). Plain C++ declarations: core includes this.
#pragma once
#include <cstddef>

#include "kernels/kernel_types.h"

namespace fts::kernels {

// Updates every tensor's param, expAvg and expAvgSq in place (device pointers), asynchronously on `stream`
// (nullptr: the legacy default stream). Throws KernelError on a launch failure, a bad argument, or in a build
// without CUDA.
void adamwCuda(const AdamWTensor* tensors, size_t count, DType gradType, const AdamWHyper& h, cudaStream_t stream);

}  // namespace fts::kernels
