// Sequence-classification data (data.format "classification"): records from CSV, TSV, JSON or JSONL with a
// text column, an optional second text column (a sentence pair: BERT's token types) and a label column, tokenized
// as transformers' run_glue.py / run_classification.py do and split train/eval. The label column decides the
// problem as there: integers or strings are classes (sorted: numbers numerically, strings by code point), floats
// are a regression target, lists are multi-label (their items as strings, sorted). Invariants: the same files,
// tokenizer, options and seed give the same rows everywhere; a bad row (missing text or label, a label the
// training split does not have, a label of another kind, an empty text) is counted with its file:line and never crashes.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/data/sft_dataset.h"  // BadRowPolicy

namespace fts {

class Tokenizer;

enum class LabelKind { SingleLabel, MultiLabel, Regression };
// transformers' config.problem_type: "single_label_classification", "multi_label_classification", "regression".
const char* problemTypeName(LabelKind kind);

struct ClassificationColumns {
    std::string text = "text";
    std::string textPair = "text_pair";  // used when the file has this column
    std::string label = "label";
};

// data.columns' roles text, text_pair and label over the defaults, the text column defaulting to textField
// (data.text_field); textPairNamed tells whether text_pair was named (the column is then required).
ClassificationColumns classificationColumns(const std::string& textField,
                                            const std::map<std::string, std::string>& columns, bool& textPairNamed);

struct ClassificationOptions {
    std::filesystem::path trainPath;
    std::filesystem::path evalPath;  // empty: hold out evalFraction of the training rows
    ClassificationColumns columns;
    bool textPairNamed = false;  // data.columns named text_pair: the column must exist
    int64_t maxLength = 128;     // tokens per row, special tokens included (truncation=True, max_length)
    double evalFraction = 0.0;
    uint64_t seed = 42;
    BadRowPolicy badRows = BadRowPolicy::Skip;
    int64_t maxBadRowsShown = 5;
    // Label names in the model's own order (its config.json id2label, when not LABEL_0...): used when they are
    // exactly the data's labels, as run_glue.py does; otherwise the sorted order.
    std::vector<std::string> modelLabelOrder;
};

// Rows stored back to back: row i is [offsets[i], offsets[i+1]) of inputIds / typeIds, and targets
// [i * targetWidth, (i + 1) * targetWidth): the class id, the regression value, or K 0/1 indicators.
struct ClassificationSplit {
    std::vector<int32_t> inputIds;
    std::vector<int8_t> typeIds;
    std::vector<int64_t> offsets{0};
    std::vector<float> targets;
    std::vector<int64_t> lines;  // the file line each row came from

    int64_t size() const { return static_cast<int64_t>(offsets.size()) - 1; }
    int64_t length(int64_t i) const { return offsets[size_t(i) + 1] - offsets[size_t(i)]; }
};

struct ClassificationData {
    LabelKind kind = LabelKind::SingleLabel;
    std::vector<std::string> labelNames;  // by id; empty for regression
    bool pairs = false;                   // a text_pair column was read
    int64_t targetWidth = 1;              // K for multi-label, else 1
    ClassificationSplit train, eval;
    int64_t records = 0, badRows = 0, truncated = 0;
    std::vector<std::string> badRowMessages;                 // the first maxBadRowsShown, "file:line: problem"
    std::vector<int64_t> trainLabelCounts, evalLabelCounts;  // rows carrying each label id (not for regression)

    int64_t numLabels() const { return kind == LabelKind::Regression ? 1 : int64_t(labelNames.size()); }
};

// Reads, tokenizes and splits. FormatError naming the file (and line) when a column is missing from every row,
// the label column mixes kinds (numbers and strings), no labelled row is left, or a bad row meets
// BadRowPolicy::Stop; ConfigError for an eval_fraction outside [0, 1).
ClassificationData buildClassificationData(const ClassificationOptions& options, const Tokenizer& tokenizer);

}  // namespace fts
