// Rows of float32 values encoded as GGUF tensor data (float16, bfloat16, and llama.cpp's block quantizations
// q4_0/q4_1/q5_0/q5_1/q8_0 and the k-quants q4_K/q5_K/q6_K), and decoded back.
// Invariant: the bytes equal llama.cpp's reference quantizers (ggml-quants.c `quantize_row_*_ref`, which
// llama-quantize uses without an importance matrix) for the same input: the same float operations in the same
// order, compiled without FMA contraction (core/CMakeLists.txt), so a file we write equals the one llama.cpp writes.
#pragma once
#include <cstdint>

#include "core/gguf/ggml_types.h"

namespace fts::gguf {

// IEEE binary16 / bfloat16 from float32, rounding to nearest even (NaN stays NaN), and back.
uint16_t floatToHalf(float value);
float halfToFloat(uint16_t half);
uint16_t floatToBfloat16(float value);
float bfloat16ToFloat(uint16_t value);

// Encodes `count` values (a multiple of the type's block size) into rowBytes(type, count) bytes at `out`.
void quantizeRow(GgmlType type, const float* values, int64_t count, uint8_t* out);
// The same bytes with the k-quants' scale searches one sub-block at a time (the plain form of the arithmetic, which
// the lane-parallel searches of kquant_lanes.h are checked against).
void quantizeRowOneBlockAtATime(GgmlType type, const float* values, int64_t count, uint8_t* out);
// Decodes `count` values of `type` from `in`.
void dequantizeRow(GgmlType type, const uint8_t* in, int64_t count, float* out);

}  // namespace fts::gguf
