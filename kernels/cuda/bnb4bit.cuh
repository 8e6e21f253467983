// bitsandbytes' 4-bit weights (QLoRA) dequantized on CUDA in one pass: codes -> codebook value -> times the block's
// absmax (decoded from the double-quantized form on the fly) -> one rounding to the compute dtype. The arithmetic is
// kernels/cpu/bnb4bit.h's (float32 product, round to nearest even), so the result equals the CPU kernel, and the
// LibTorch-ops path of core/model/quant4bit.cpp, bit for bit (model_test_quant4bit_cuda).
#pragma once
#include <cstdint>

#include "kernels/cpu/bnb4bit.h"
#include "kernels/kernel_types.h"

namespace fts::kernels {

// The scales of a 4-bit weight on the device: float32 per block, or (double quantization) uint8 codes per block
// decoded as nestedCode[code] * nestedAbsmax[block / 256] + offset.
struct Quant4Scales {
    const float* absmax = nullptr;         // plain: one float32 per block
    const uint8_t* absmaxCodes = nullptr;  // nested: one uint8 per block
    const float* nestedAbsmax = nullptr;   // nested: one float32 per 256 blocks
    const float* nestedCode = nullptr;     // nested: the 256-entry map
    float offset = 0.0f;
};

// packed: (n + 1) / 2 bytes, two codes per byte (the first in the high nibble); out: n values of outType.
// blocksize: values per absmax (any positive count; multiples of 8 take the vectorised path).
void dequantize4bitCuda(const uint8_t* packed, const Quant4Scales& scales, int64_t n, int64_t blocksize,
                        Quant4Type type, void* out, DType outType, cudaStream_t stream);

}  // namespace fts::kernels
