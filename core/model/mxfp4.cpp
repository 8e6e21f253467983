// MXFP4 expert weights dequantized on load (mxfp4.h).
#include "core/model/mxfp4.h"

#include "core/util/error.h"
#include "core/util/shape_text.h"

namespace fts {

torch::Tensor dequantizeMxfp4(const torch::Tensor& blocks, const torch::Tensor& scales, torch::ScalarType dtype,
                              const std::string& name) {
    if (blocks.scalar_type() != torch::kUInt8 || scales.scalar_type() != torch::kUInt8)
        throw Error(name + "_blocks and " + name + "_scales: MXFP4 tensors must be U8, got " +
                    std::string(c10::toString(blocks.scalar_type())) + " and " +
                    std::string(c10::toString(scales.scalar_type())));
    if (blocks.dim() < 3 || blocks.size(-1) != 16)
        throw Error(name + "_blocks: shape " + shapeText(blocks.sizes().vec()) +
                    "; an MXFP4 block is 16 bytes (32 values), expected (..., rows, groups, 16)");
    if (scales.sizes() != blocks.sizes().slice(0, blocks.dim() - 1))
        throw Error(name + "_scales: shape " + shapeText(scales.sizes().vec()) + ", expected " +
                    shapeText(blocks.sizes().slice(0, blocks.dim() - 1).vec()) + " (one scale per block of " + name +
                    "_blocks " + shapeText(blocks.sizes().vec()) + ")");
    static const float kE2M1[16] = {+0.0f, +0.5f, +1.0f, +1.5f, +2.0f, +3.0f, +4.0f, +6.0f,
                                    -0.0f, -0.5f, -1.0f, -1.5f, -2.0f, -3.0f, -4.0f, -6.0f};
    const torch::Tensor table = torch::from_blob(const_cast<float*>(kE2M1), {16}, torch::kFloat32).to(blocks.device());
    const torch::Tensor low = blocks.bitwise_and(0x0F).to(torch::kLong);
    const torch::Tensor high = blocks.bitwise_right_shift(4).to(torch::kLong);
    // (..., rows, groups, 16, 2) -> (..., rows, groups, 32): each byte's low value first
    torch::Tensor values = torch::stack({table.index({low}), table.index({high})}, -1).flatten(-2);
    values = torch::ldexp(values, (scales.to(torch::kInt32) - 127).unsqueeze(-1));
    return values.flatten(-2).transpose(-1, -2).contiguous().to(dtype);
}

}  // namespace fts
