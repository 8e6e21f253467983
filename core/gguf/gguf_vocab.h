// A Hugging Face tokenizer (tokenizer.json + tokenizer_config.json + config.json) as GGUF's tokenizer.* metadata,
// in the two forms llama.cpp runs: "gpt2" (byte-level BPE with merges: GPT-2, Llama 3, Qwen2) and "llama"
// (SentencePiece-style BPE with byte fallback: Llama 2, Mistral). The byte-level pre-tokenizer is named by its
// regex ("gpt-2", "llama-bpe", "qwen2"), never guessed.
// Invariant: a tokenizer llama.cpp would split differently (another pre-tokenizer regex, WordPiece, Unigram, a
// prefix space llama.cpp does not add) is an error naming the file and what it has, raised before anything is
// written.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/gguf/gguf_writer.h"

namespace fts::gguf {

struct GgufVocab {
    std::string model;                    // "gpt2" or "llama"
    std::string pre;                      // "gpt-2", "llama-bpe", "qwen2", "default"
    std::vector<MetadataEntry> metadata;  // tokenizer.ggml.* (chat template not included)
    std::string bosText, eosText;         // the BOS / EOS tokens' text ("" when the tokenizer has none)
    int64_t tokenCount = 0;
    std::vector<std::string> warnings;  // differences llama.cpp will show (said to the user)
};

// `dir` holds tokenizer.json (and optionally tokenizer_config.json); `config` is the model's config.json
// (vocab_size, the special ids it names). `vocabSize`: the embedding's rows (tokens beyond the tokenizer's become
// [PAD{i}], as llama.cpp's converter writes them).
GgufVocab readGgufVocab(const std::filesystem::path& dir, const nlohmann::json& config, int64_t vocabSize);

// The pre-tokenizer names for the byte-level regexes llama.cpp implements; empty for another regex.
std::string preTokenizerName(const std::string& splitRegex);

}  // namespace fts::gguf
