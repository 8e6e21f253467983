// A weight in bitsandbytes' 4-bit format (QLoRA's NF4 or FP4, optionally with double-quantized absmax), as LibTorch
// tensors: quantized from a float weight, and dequantized into a compute dtype. The arithmetic is
// kernels/cpu/bnb4bit.h's, equal to bitsandbytes 0.50 on a CPU bit for bit; the tensor names and shapes are those
// transformers saves (`<name>.weight`, `.weight.absmax`, `.weight.nested_absmax`, ...).
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
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

// The same weight computed with LibTorch ops on the device q's tensors live on (CUDA included): codes split from
// the bytes, looked up in the codebook, times the block's absmax in float32, one cast to dtype. Equal to
// dequantize4bit bit for bit (model_test_quant4bit_golden). The nested absmax is decoded with the same ops. The
// reference the CUDA kernel is checked against, and the path where no kernel was built.
torch::Tensor dequantize4bitOps(const Quant4Weight& q, torch::Dtype dtype);

// The fused CUDA kernel (kernels/cuda/bnb4bit.cuh) on q's device and LibTorch's current stream: one pass, the same
// bits as dequantize4bitOps. Throws when fts_kernels was built without CUDA or q is not on a CUDA device.
torch::Tensor dequantize4bitCuda(const Quant4Weight& q, torch::Dtype dtype);
bool quant4CudaKernelBuilt();

// The weight in `dtype` on q's device, by the fastest path there: the CPU kernel on the CPU, the CUDA kernel on a
// GPU (FTS_CUDA_DEQUANT=0 takes dequantize4bitOps instead), LibTorch ops elsewhere. Every path gives the same bits.
torch::Tensor dequantize4bitOnDevice(const Quant4Weight& q, torch::Dtype dtype);

// ---- the layout transformers saves (save_pretrained of a bitsandbytes 4-bit model) ----
// For a weight saved under `key` ("model.layers.0.self_attn.q_proj.weight"): `key` (the packed codes), `key.absmax`,
// `key.quant_map` (the 16-value codebook), with double quantization `key.nested_absmax` and `key.nested_quant_map`,
// and `key.quant_state.bitsandbytes__<nf4|fp4>`: the other fields as the bytes of a JSON object
// ({"quant_type", "blocksize", "dtype", "shape"[, "nested_blocksize", "nested_dtype", "nested_offset"]}, written as
// Python's json.dumps writes it).
std::vector<std::pair<std::string, torch::Tensor>> quant4Tensors(const std::string& key, const Quant4Weight& q);

// The weight saved under `key`, read through `find` (a tensor of the file by name; undefined when absent). nullopt
// when `key` is not saved 4-bit (no quant_state entry); FormatError naming `file` and the key when the entries are
// missing or do not fit each other.
std::optional<Quant4Weight> readQuant4Weight(const std::string& key,
                                             const std::function<torch::Tensor(const std::string&)>& find,
                                             const std::string& file);

}  // namespace fts
