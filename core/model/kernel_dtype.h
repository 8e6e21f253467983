// The kernels' element type (kernels::DType) of a LibTorch dtype: float32, bfloat16 and float16 map, any other is
// nullopt. Shared by every caller of fts_kernels (block ops, 4-bit dequantization, AdamW, unscaling, offload).
#pragma once
#include <torch/torch.h>

#include <optional>

#include "kernels/kernel_types.h"

namespace fts {

inline std::optional<kernels::DType> kernelDType(torch::Dtype t) {
    switch (t) {
        case torch::kFloat32:
            return kernels::DType::Float32;
        case torch::kBFloat16:
            return kernels::DType::BFloat16;
        case torch::kFloat16:
            return kernels::DType::Float16;
        default:
            return std::nullopt;
    }
}

}  // namespace fts
