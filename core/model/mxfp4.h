// gpt-oss's released checkpoints hold the experts' weights in MXFP4 (the OCP microscaling format): <name>_blocks
// (..., rows, groups, 16) bytes of two 4-bit E2M1 values each (low nibble first) and <name>_scales (..., rows, groups),
// one E8M0 exponent (biased by 127) for each block of 32 values. They are dequantized on load, as transformers'
// convert_moe_packed_tensors does: value x 2^(scale - 127), exact in float32 and bfloat16.
#pragma once
#include <string>

#include "core/model/language_model.h"

namespace fts {

// The dequantized tensor in gpt-oss's layout: (..., rows, groups x 32) with its last two dimensions swapped, so
// gate_up_proj_blocks (experts, 2 x intermediate, hidden / 32, 16) becomes gate_up_proj (experts, hidden,
// 2 x intermediate). `name` (the tensor's name without _blocks) names the tensors in errors: a block that is not 16
// bytes, scales whose shape is not the blocks' without their last dimension, or a dtype other than uint8.
torch::Tensor dequantizeMxfp4(const torch::Tensor& blocks, const torch::Tensor& scales, torch::ScalarType dtype,
                              const std::string& name);

}  // namespace fts
