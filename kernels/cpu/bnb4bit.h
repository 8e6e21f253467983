// bitsandbytes' 4-bit weight format (QLoRA), bit for bit as bitsandbytes 0.50 computes it on a CPU: NF4 and FP4
// codebooks, blockwise absmax scaling, two codes per byte (the first in the high nibble), and the double
// quantization of the absmax (8-bit dynamic code over blocks of 256, around their mean). Plain pointers, no LibTorch;
// core/model/quantized_linear.* holds the tensors and the safetensors layout transformers saves.
//
// The rules (docs/qlora.md has the derivation): a weight is flattened row-major and cut into blocks of `blocksize`
// values. A full block is scaled by fl(1 / max(absmax, 1e-38)), the trailing partial block divided by its absmax
// (clamped to 1e-38, and stored so); the scaled value takes the codebook entry whose interval holds it (a value on
// a midpoint takes the lower entry); an odd count is padded with 0.0.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fts::kernels {

enum class Quant4Type { Nf4, Fp4 };

// The 16 values of a codebook, indexed by code.
const float* quant4Codebook(Quant4Type type);

// Blocks of `blocksize` values in n values (the last one may be partial).
inline int64_t quant4Blocks(int64_t n, int64_t blocksize) { return (n + blocksize - 1) / blocksize; }

// x: n float32 values. packed: (n + 1) / 2 bytes. absmax: quant4Blocks(n, blocksize) floats.
void quantize4bit(const float* x, int64_t n, int64_t blocksize, Quant4Type type, uint8_t* packed, float* absmax);

// out[i] = codebook[code i] * absmax[i / blocksize], float32 (cast afterwards for bf16/fp16 weights).
void dequantize4bit(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                    float* out);

// ---- double quantization of the absmax ----

// bitsandbytes' signed dynamic 8-bit map (create_dynamic_map(signed=True)): 256 sorted values, 0.0 at 127 and 1.0
// at 255 (no -1.0).
const float* dynamicMap8bit();

inline constexpr int64_t kNestedBlocksize = 256;

// x: n values, quantized in blocks of 256 with `code` (256 sorted values) as bitsandbytes' CPU kernel does
// (through its 65536-entry lookup of the normalised value). q: n codes; absmax: quant4Blocks(n, 256) floats.
void quantizeBlockwise8bit(const float* x, int64_t n, const float* code, uint8_t* q, float* absmax);

// out[i] = fl(fl(code[q[i]] * absmax[i / 256]) + offset): the absmax a double-quantized weight is decoded with.
void dequantizeBlockwise8bit(const uint8_t* q, const float* absmax, int64_t n, const float* code, float offset,
                             float* out);

}  // namespace fts::kernels
