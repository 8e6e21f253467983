// What a model folder says about generating with it: generation_config.json (transformers' GenerationConfig as
// save_pretrained writes it) and, where that file is absent or silent, config.json's token ids. The generation
// options start from these and the user's settings override them (docs/generate.md).
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace fts {

struct ModelGenerationConfig {
    std::vector<int64_t> eosTokenIds;  // eos_token_id: an integer or a list; empty when neither file names one
    std::optional<int64_t> padTokenId, bosTokenId;
    // The folder's sampling defaults (generation_config.json only).
    std::optional<bool> doSample;
    std::optional<double> temperature, topP, repetitionPenalty;
    std::optional<int64_t> topK, maxNewTokens;
};

// Reads `modelDir`/generation_config.json and `modelDir`/config.json (either may be missing). A file that is not
// valid JSON, or a known key of the wrong type, is a FormatError naming the file and the key.
ModelGenerationConfig readModelGenerationConfig(const std::filesystem::path& modelDir);

}  // namespace fts
