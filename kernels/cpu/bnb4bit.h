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

#include "kernels/cpu/cpu_isa.h"

namespace fts::kernels {

enum class Quant4Type { Nf4, Fp4 };

// The 16 values of a codebook, indexed by code.
const float* quant4Codebook(Quant4Type type);

// Blocks of `blocksize` values in n values (the last one may be partial).
inline int64_t quant4Blocks(int64_t n, int64_t blocksize) { return (n + blocksize - 1) / blocksize; }

// x: n float32 values. packed: (n + 1) / 2 bytes. absmax: quant4Blocks(n, blocksize) floats.
void quantize4bit(const float* x, int64_t n, int64_t blocksize, Quant4Type type, uint8_t* packed, float* absmax);

// out[i] = codebook[code i] * absmax[i / blocksize], float32 (cast afterwards for bf16/fp16 weights), with the
// widest vector variant this CPU runs (bestCpuIsa), or the one named (KernelError when this CPU lacks it). Every
// variant gives the reference's bits: the same one multiplication per value.
void dequantize4bit(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                    float* out);
void dequantize4bit(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                    float* out, CpuIsa isa);
// The scalar loop the variants are tested against.
void dequantize4bitReference(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, Quant4Type type,
                             float* out);

namespace bnb4bit_detail {
// The vector variants (bnb4bit_avx2.cpp, bnb4bit_avx512.cpp), each compiled for its instruction set: whole blocks
// whose size is a multiple of the vector's values vectorised, the rest by the scalar loop. lut: the 16 values.
void dequantizeAvx2(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, const float* lut,
                    float* out);
void dequantizeAvx512(const uint8_t* packed, const float* absmax, int64_t n, int64_t blocksize, const float* lut,
                      float* out);
// out[i] for i in [from, n) one by one.
inline void dequantizeScalarFrom(const uint8_t* packed, const float* absmax, int64_t from, int64_t n, int64_t blocksize,
                                 const float* lut, float* out) {
    for (int64_t i = from; i < n; ++i) {
        const uint8_t byte = packed[i / 2];
        const uint8_t code = i % 2 == 0 ? uint8_t(byte >> 4) : uint8_t(byte & 0xF);
        out[i] = lut[code] * absmax[i / blocksize];
    }
}
}  // namespace bnb4bit_detail

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
