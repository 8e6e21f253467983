// A weight in bitsandbytes' 4-bit format (QLoRA's NF4 or FP4, optionally with double-quantized absmax), as LibTorch
// tensors: quantized from a float weight, and dequantized into a compute dtype. The arithmetic is
// kernels/cpu/bnb4bit.h's, equal to bitsandbytes 0.50 on a CPU bit for bit; the tensor names and shapes are those
// transformers saves (`<name>.weight`, `.weight.absmax`, `.weight.nested_absmax`, ...).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/bnb4bit.h"

namespace fts {

using kernels::Quant4Type;

struct Quant4Weight {
    Quant4Type type = Quant4Type::Nf4;
    int64_t blocksize = 64;
    std::vector<int64_t> shape;            // the weight's shape, [out, in] for a Linear
    torch::Dtype dtype = torch::kFloat32;  // the dtype it was quantized from (a plain dequantize returns it)
    torch::Tensor packed;                  // uint8 ((n + 1) / 2, 1): two codes per byte, the first in the high nibble
    torch::Tensor absmax;                  // float32 (blocks), or uint8 (blocks) when nested
    // Double quantization (bnb_4bit_use_double_quant): absmax = code8[absmax] * nestedAbsmax[b / 256] + offset.
    torch::Tensor nestedAbsmax;  // float32 (ceil(blocks / 256)); undefined when not nested
    torch::Tensor nestedCode;    // float32 (256): the dynamic map
    float offset = 0.0f;
    bool nested() const { return nestedAbsmax.defined(); }
    int64_t numel() const;
};

// Quantizes a float32/bfloat16/float16 weight (any device; computed on the CPU). doubleQuant: the absmax is
// quantized again around its mean (LibTorch's mean, as bitsandbytes takes torch's).
Quant4Weight quantize4bit(const torch::Tensor& weight, Quant4Type type, int64_t blocksize = 64,
                          bool doubleQuant = false);

// The per-block scales as float32 (decoded from the nested form when nested).
torch::Tensor quant4Absmax(const Quant4Weight& q);

// The weight in `dtype` (float32 products, one rounding to dtype), shaped q.shape, on the CPU.
torch::Tensor dequantize4bit(const Quant4Weight& q, torch::Dtype dtype);

}  // namespace fts
