// Scalar AdamW / Adam-L2 update of one fp32 master tensor: the reference the CUDA multi-tensor kernel
// (kernels/cuda/adamw.cuh) is tested against, itself tested against LibTorch's and core/optim's AdamW.
// Invariant: the same float32 operations, in the same order, as core/optim/adamw.cpp's LibTorch path.
#pragma once
#include "kernels/kernel_types.h"

namespace fts::kernels {

// Updates t.param, t.expAvg and t.expAvgSq in place from t.grad (of `gradType`).
void adamwReference(const AdamWTensor& t, DType gradType, const AdamWHyper& h);

}  // namespace fts::kernels
