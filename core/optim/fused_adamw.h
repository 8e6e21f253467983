// The CUDA path of AdamW::step: when every parameter that has a gradient is an fp32 CUDA tensor (one device,
// contiguous, moments alike), one fused multi-tensor kernel (kernels/cuda/adamw.cuh) updates them all on the
// current stream. Otherwise it declines and AdamW keeps its LibTorch path (CPU, or bf16/fp16 parameters).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "core/config/train_config.h"

namespace fts {

// True when it did the update (step = the 1-based update count); false when the tensors are not for it (nothing
// touched). Throws fts::Error when the kernel fails.
bool fusedAdamWStepCuda(const std::vector<torch::Tensor>& params, std::vector<torch::Tensor>& expAvg,
                        std::vector<torch::Tensor>& expAvgSq, const OptimizerConfig& cfg, double lr, int64_t step);

// Whether this build has the CUDA kernels and the runtime sees a device (the GPU tests ask).
bool fusedCudaKernelsUsable();

}  // namespace fts
