// Eval metrics of sequence classification as the Hugging Face examples report them (run_glue.py /
// run_classification.py with scikit-learn): accuracy and F1 for classes (binary F1 of label 1 with two labels,
// macro F1 over the labels present in labels or predictions otherwise), subset accuracy and macro / micro F1 over
// the K columns for multi-label (a label is predicted where its logit > 0), MSE and Pearson's r for regression.
// Torch-free: logits and targets as flat float rows.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/data/classification_dataset.h"  // LabelKind

namespace fts {

// logits: N rows of numLabels; targets: N rows of the data's target width (class id, value, or K indicators).
// Keys without the "eval_" prefix: accuracy, f1 (+ f1_micro for multi-label); mse, pearson for regression
// (pearson is NaN when either side is constant, as scipy's). Empty for N == 0.
std::map<std::string, double> classificationMetrics(LabelKind kind, int64_t numLabels, const std::vector<float>& logits,
                                                    const std::vector<float>& targets);

}  // namespace fts
