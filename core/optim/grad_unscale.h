// Loss-scale removal with the overflow check in one call: every gradient is divided by the loss scale and the
// result says whether one held inf/NaN. CUDA gradients (one device): one fused pass (kernels/cuda/unscale.cuh,
// multiplying by 1/scale, exact for the dynamic scaler's powers of two); CPU: LibTorch's div_ and isfinite.
#pragma once
#include <torch/torch.h>

#include <vector>

namespace fts {

// Unscales the defined tensors of `grads` in place; returns true when any element was inf or NaN before.
bool unscaleGradients(const std::vector<torch::Tensor>& grads, double lossScale);

}  // namespace fts
