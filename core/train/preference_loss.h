// The preference objectives' losses and metrics as TRL 1.16 computes them, for one micro-batch of P pairs laid out as
// 2P rows [chosen rows; rejected rows]: DPOTrainer's loss types (summed completion log-probs against a reference),
// ORPOTrainer's odds-ratio loss and CPOTrainer's SimPO (averaged log-probs, no reference). docs/preference.md gives
// each formula. LibTorch header: include it from core/train sources and tests only.
#pragma once
#include <torch/torch.h>

#include <map>
#include <string>

#include "core/config/train_config.h"

namespace fts {

// What the loss needs of a forward pass, per row: the completion tokens' log-probabilities summed (differentiable),
// their count, and for the metrics the sum over those positions of the logits' mean over the vocabulary.
struct CompletionScores {
    torch::Tensor logps;         // (2P) float32
    torch::Tensor tokens;        // (2P) float32 completion tokens (predictions with a label)
    torch::Tensor meanLogitSum;  // (2P) float32, no gradient
};

// From logits (2P, T, V) and labels (2P, T) (-100: prompt and padding): position t predicts labels[:, t + 1].
// withLogitMeans false: the log-probs alone (a reference's, a KL sequence's), meanLogitSum left undefined.
CompletionScores completionScores(const torch::Tensor& logits, const torch::Tensor& labels, bool withLogitMeans = true);

// The mean cross-entropy of the chosen rows' predictions of `labels` (-100 ignored), token-weighted over the
// micro-batch: DPO's "sft" term and CPO's NLL (completion labels), ORPO's NLL (labels on the whole chosen sequence).
torch::Tensor chosenNll(const torch::Tensor& logits, const torch::Tensor& labels);

struct PreferenceLoss {
    torch::Tensor loss;                     // scalar: the micro-batch's loss as TRL computes it
    std::map<std::string, double> metrics;  // TRL's names: rewards/chosen, rewards/margins, logps/rejected, ...
};

// objective "dpo": `reference` holds the reference's summed completion log-probs (2P). `logits` and `labels` are the
// policy's (for "sft" and the logits metrics); `nllLabels` is unused.
// "simpo": CPO with loss_type "simpo" (averaged log-probs, gamma / beta margin, cpo_alpha x NLL of the chosen).
// "orpo": averaged log-probs, NLL over the chosen rows' `nllLabels` (the whole sequence, as TRL's ORPO).
PreferenceLoss preferenceLoss(const std::string& objective, const PreferenceSection& p, const torch::Tensor& logits,
                              const torch::Tensor& labels, const CompletionScores& policy,
                              const torch::Tensor& reference, const torch::Tensor& nllLabels);

// KTO (TRL 1.16's KTOTrainer) over B examples: `policy` and `reference` (B) the summed completion log-probs,
// `desirable` (B, bool) the labels, `kl` the clamped KL estimate (no gradient). Per example: desirable
// 1 - σ(β(c - c0 - kl)), undesirable 1 - σ(β(kl - (r - r0))) (loss_type "apo_zero_unpaired": 1 - σ(β(c - c0)) and
// σ(β(r - r0)), no KL), times desirable_weight / undesirable_weight; the loss is their mean. Metrics with TRL's
// names, a label's only when the micro-batch has it (rewards/margins when it has both).
PreferenceLoss ktoLoss(const PreferenceSection& p, const CompletionScores& policy, const torch::Tensor& reference,
                       const torch::Tensor& desirable, double kl);

}  // namespace fts
