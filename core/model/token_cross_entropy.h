// Token-level cross-entropy over a vocabulary, fused and chunked: what at::cross_entropy_loss computes (ignore_index,
// sum or mean over the counted targets) without materialising log-probabilities or a shifted copy of the logits.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <utility>

namespace fts {

enum class TokenLossReduction { Sum, Mean };

// logits (..., V) in any floating dtype; targets (...) integer class ids, kIgnoreTarget where not counted. The loss
// is computed in float32 (float64 logits: float64) row block by row block; backward writes softmax - one-hot,
// times the incoming gradient, straight into a gradient of the logits' dtype. Mean over zero counted targets is NaN,
// as in torch. Throws fts::Error on shape mismatch or a target outside [0, V).
torch::Tensor tokenCrossEntropy(const torch::Tensor& logits, const torch::Tensor& targets,
                                TokenLossReduction reduction);

// Targets flattened to (N) int64 on `device`, each in [0, vocab) or kIgnoreTarget (fts::Error naming the first
// other), and the divisor of `reduction`: the counted targets for Mean (-1 when none: NaN, as torch), 0 for Sum.
std::pair<torch::Tensor, double> checkedTargets(const torch::Tensor& targets, int64_t vocab,
                                                const torch::Device& device, TokenLossReduction reduction);

// Next-token targets of a causal LM: targets[:, t] = labels[:, t + 1], and the last position ignored, as
// transformers 5 shifts the labels (not the logits) in ForCausalLMLoss.
torch::Tensor nextTokenTargets(const torch::Tensor& labels);

constexpr int64_t kIgnoreTarget = -100;

}  // namespace fts
