// A Hugging Face model folder (config.json + safetensors) as llama.cpp's architecture: the `<arch>.*`
// hyper-parameters and each GGUF tensor with the HF tensor it comes from and how it is rearranged. llama, mistral
// (as "llama") and qwen2, and gpt2, as llama.cpp's converter lays them out:
//   llama/mistral: q_proj and k_proj rows permuted per head (HF's rotate-half RoPE -> llama.cpp's adjacent pairs);
//                  Llama 3.1-style rope_scaling as the rope_freqs.weight tensor
//   qwen2:         NEOX RoPE (no permutation), q/k/v biases
//   gpt2:          Conv1D weights transposed to (out, in); every bias kept
// Invariant: every check that can fail (architecture, activation, a tensor missing or of the wrong shape, a rope
// scaling llama.cpp cannot express) fails here, before a byte is written.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/gguf/gguf_writer.h"
#include "core/weights/model_weights.h"

namespace fts::gguf {

// How a source tensor becomes the GGUF tensor's rows (numpy order: rows x columns, row-major).
// AddOne: the value + 1 (Gemma's (1 + w) norms, which llama.cpp multiplies by w).
enum class Rearrange { None, Transpose, PermuteHeads, AddOne };

struct PlannedTensor {
    std::string name;         // GGUF name, e.g. "blk.0.attn_q.weight"
    std::string source;       // HF name; empty for a computed tensor (rope_freqs)
    std::vector<int64_t> ne;  // GGUF shape (ggml order)
    Rearrange rearrange = Rearrange::None;
    int64_t heads = 0;          // PermuteHeads: heads of the rows
    std::vector<float> values;  // computed tensors only
};

struct GgufModel {
    std::string arch;  // "llama", "qwen2", "gpt2"
    int layers = 0;
    int64_t vocabSize = 0;
    int64_t contextLength = 0;
    std::vector<MetadataEntry> hyperParameters;  // <arch>.* keys, in the converter's order
    std::vector<PlannedTensor> tensors;          // sorted as llama.cpp's loader orders them (layer, then name)
    std::vector<std::string> warnings;           // what llama.cpp will do differently, said to the user
};

// Plans the export of `dir` (its config.json and weights). ConfigError / FormatError naming the file and the key
// or tensor when the model cannot be expressed.
GgufModel planGgufModel(const std::filesystem::path& dir, const nlohmann::json& config, const ModelWeights& weights);

// The tensor's values as float32 in GGUF row order (source dtype F32, F16 or BF16; rearranged), on `threads`.
std::vector<float> tensorValues(const PlannedTensor& t, const ModelWeights& weights, int threads = 1);

}  // namespace fts::gguf
