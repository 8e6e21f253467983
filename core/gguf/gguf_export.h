// A Hugging Face model folder as one GGUF file (and an Ollama Modelfile beside it): plan the architecture and the
// tokenizer (every error raised before writing), pick each tensor's type from the quantization preset, then stream
// the tensors through the block quantizers (rows split over threads) into an atomically written file.
// Peak memory: one tensor in float32 plus its encoding, never the model.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/data/chat_template.h"
#include "core/gguf/quant_preset.h"

namespace fts::gguf {

struct GgufExportOptions {
    QuantPreset preset = QuantPreset::F16;
    std::string name;                      // general.name (default: the folder's name)
    std::optional<ChatTemplateKind> chat;  // the template the run trained with: the Modelfile's, and the GGUF's
                                           // chat template when the folder's tokenizer has none
    bool writeModelfile = true;
    // The Modelfile's num_ctx: the sequence length the run trained at (data.max_length); 0 leaves Ollama's default
    // (the model's full context, e.g. Qwen2.5's 32,768, would make Ollama reserve a KV cache that size).
    int64_t modelfileContext = 0;
    int threads = 0;  // quantization threads (0: every core)
    // Called after each tensor: bytes of tensor data written so far, of `total`.
    std::function<void(uint64_t done, uint64_t total)> progress;
};

struct GgufExportResult {
    std::filesystem::path file, modelfile;  // modelfile empty when not written
    uint64_t fileBytes = 0;
    std::map<std::string, int> tensorTypes;  // "Q4_K" -> count of tensors
    std::vector<std::string> warnings;       // what llama.cpp does differently from our model
    std::optional<ChatTemplateKind> chat;    // the template the Modelfile uses
};

// A folder's own name, also when given as "model/" or "x/model/." (general.name when none is given).
std::string folderName(const std::filesystem::path& dir);

// modelDir: config.json, model.safetensors (or shards), tokenizer.json. outFile: the .gguf to write (replaced
// atomically; its folder created). ConfigError / FormatError / IoError naming the file and what is wrong.
GgufExportResult exportGguf(const std::filesystem::path& modelDir, const std::filesystem::path& outFile,
                            const GgufExportOptions& options);

}  // namespace fts::gguf
