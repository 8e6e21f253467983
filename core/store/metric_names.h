// The metric names a run records beside loss / lr / grad_norm that readers single out: the eval metrics of
// classification runs, in the order the CLI, the compare page and the run page list them (the Trainer's names).
#pragma once
#include <array>

namespace fts {

inline constexpr std::array<const char*, 5> kClassificationEvalMetrics = {"eval_accuracy", "eval_f1", "eval_f1_micro",
                                                                          "eval_mse", "eval_pearson"};
// Preference runs (training.objective dpo / orpo / simpo): TRL's reward metrics, training and eval.
inline constexpr std::array<const char*, 6> kPreferenceMetrics = {"rewards/margins",      "rewards/accuracies",
                                                                  "rewards/chosen",       "rewards/rejected",
                                                                  "eval_rewards/margins", "eval_rewards/accuracies"};

}  // namespace fts
