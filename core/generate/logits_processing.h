// What transformers' generate() does to the next-token logits before it picks a token, in its order: the
// repetition penalty (greedy and sampling), then for sampling the temperature, top-k and top-p warpers. Each
// function equals the transformers processor of the same name on the same input (tests/core/generate).
#pragma once
#include <torch/torch.h>

#include <cstdint>

namespace fts {

struct SamplingSettings {
    bool doSample = false;           // false: greedy (argmax); the warpers below are not applied
    double temperature = 1.0;        // > 0
    int64_t topK = 50;               // 0: off (transformers' default 50 applies when sampling)
    double topP = 1.0;               // (0, 1]; 1: off
    double repetitionPenalty = 1.0;  // > 0; 1: off
};

// RepetitionPenaltyLogitsProcessor: for every id present in the row's sequence (prompt, its padding and the tokens
// generated so far), a positive logit is divided by the penalty and a negative one multiplied. logits (B, V) float;
// sequences (B, S) int64.
torch::Tensor applyRepetitionPenalty(const torch::Tensor& logits, const torch::Tensor& sequences, double penalty);
// TemperatureLogitsWarper: logits / temperature.
torch::Tensor applyTemperature(const torch::Tensor& logits, double temperature);
// TopKLogitsWarper: logits below the k-th largest become -inf (ties with it are kept).
torch::Tensor applyTopK(const torch::Tensor& logits, int64_t k);
// TopPLogitsWarper: keep the smallest set of the most probable tokens whose probability reaches top_p (at least one).
torch::Tensor applyTopP(const torch::Tensor& logits, double topP);

// The whole chain in transformers' order for these settings.
torch::Tensor processLogits(const torch::Tensor& logits, const torch::Tensor& sequences, const SamplingSettings& s);
// The next token of every row, (B) int64: argmax of the processed logits, or a draw from their softmax with `gen`.
torch::Tensor pickNextTokens(const torch::Tensor& processed, bool doSample, at::Generator& gen);

}  // namespace fts
