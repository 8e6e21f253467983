// A Linear layer whose weight is held 4-bit (QLoRA's frozen base, quant4bit.h): y = x W^T + b with W dequantized
// into x's dtype (bitsandbytes' compute dtype) for the product, and again in backward for dx = dy W, so the
// dequantized weight lives only inside the op, never across the step (bitsandbytes' MatMul4Bit does the same). W
// gets no gradient; b does when it requires one. Any device: the dequantization is dequantize4bitOnDevice.
#pragma once
#include <torch/torch.h>

#include "core/model/quant4bit.h"

namespace fts {

// x: (..., in) of the compute dtype; w: (out, in) 4-bit, its tensors on x's device; bias: (out) or undefined.
torch::Tensor quant4Linear(const torch::Tensor& x, const Quant4Weight& w, const torch::Tensor& bias = {});

}  // namespace fts
