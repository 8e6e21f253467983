// The `--quant` presets of a GGUF export and the type of each tensor under them, as llama.cpp's llama-quantize
// chooses it (src/llama-quant.cpp): q4_k_m keeps attn_v (and GPT-2's fused attn_qkv) and ffn_down of the first and
// last eighth of the layers and every third layer between at q6_K, the output matrix at q6_K; rows whose length is
// not a multiple of a type's block fall back (q4_K -> q5_0, q5_K -> q5_1, q6_K -> q8_0, then f16). 1-D tensors,
// norms and position embeddings are never quantized (they stay float32).
// Invariant: a file written with preset P has the tensor types `llama-quantize F32-FILE P` gives the same tensors
// in the same order (the layer counters advance in tensor order).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gguf/ggml_types.h"

namespace fts::gguf {

enum class QuantPreset { F32, F16, BF16, Q8_0, Q4_0, Q4_K_M, Q5_K_M, Q6_K };

// "f32", "f16", "bf16", "q8_0", "q4_0", "q4_k_m", "q5_k_m", "q6_k" (case-insensitive; also "Q4_K_M"); nullopt else.
std::optional<QuantPreset> parseQuantPreset(std::string_view name);
std::string presetName(QuantPreset preset);  // "q4_k_m"
std::string presetNames();                   // "f32, f16, bf16, q8_0, q4_0, q4_k_m, q5_k_m, q6_k"
uint32_t fileType(QuantPreset preset);       // general.file_type (llama.h `llama_ftype`)
bool isQuantized(QuantPreset preset);        // a block type (writes general.quantization_version)

struct TensorShape {
    std::string name;         // GGUF name (blk.3.attn_v.weight)
    std::vector<int64_t> ne;  // ggml order
};

// The type of each tensor of `tensors` (in file order) under `preset`; `layers` = block_count.
std::vector<GgmlType> tensorTypes(QuantPreset preset, const std::vector<TensorShape>& tensors, int layers);

}  // namespace fts::gguf
