// The trainer's data behind one interface: plain-text LM blocks (data.format "lm", buildLmData),
// instruction sequences (the instruction formats: sft_dataset + token_cache, memory-mapped) or labelled rows
// (data.format "classification": classification_batches.h), turned into micro-batch tensors, plus the
// token-normalised loss. Invariant: batch(indices) is a pure function of the
// indices, so the rank-aware sampler's saved position alone makes a resumed run read the same batches.
// LibTorch header: include it from core/train sources and tests only (trainer.h stays torch-free).
#pragma once
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config/train_config.h"
#include "core/data/sft_dataset.h"

namespace fts {

struct ClassificationData;
class EventSink;
class LanguageModel;
class Tokenizer;

struct TrainBatch {
    torch::Tensor inputIds;       // (B, T) int64, on the device
    torch::Tensor labels;         // (B, T) int64, -100 = no loss (prompt, padding, first token of a packed sample);
                                  // classification: (B) int64 class ids, (B, K) float32 indicators, (B) float32 values
    torch::Tensor attentionMask;  // (B, T) int64, 0 = padding; undefined when there is none
    torch::Tensor positionIds;    // (B, T) int64 for packed rows (LanguageModel::forwardPacked); else undefined
    torch::Tensor tokenTypeIds;   // (B, T) int64 segment ids of sentence pairs; else undefined (all 0)
    int64_t lossTokens = 0;       // predictions that count: labels[:, 1:] != -100; classification: rows
    int64_t tokens = 0;           // non-padding tokens
};

class TrainingData {
public:
    virtual ~TrainingData() = default;
    virtual int64_t numTrain() const = 0;  // training sequences (what the sampler permutes)
    virtual int64_t numEval() const = 0;
    // The sequences at `indices` of the train (or eval) split, right-padded to the longest.
    virtual TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const = 0;
    // Identity of the data (for checkpoints: a resume must see the same data); "" for the LM path.
    virtual std::string key() const = 0;
    // Summary for the start event (format, template, samples, bad rows, token statistics...).
    virtual nlohmann::json summary() const = 0;
    // Classification rows: their labels (the model's config and the eval metrics need them); null otherwise.
    virtual const ClassificationData* classification() const { return nullptr; }
};

// Builds (or, for instruction formats, loads from data.cache_dir) the data a config describes. Logs the
// cache outcome and the bad rows (the first few, with file:line) through `events` on the leader rank.
// Throws FormatError (data.on_bad_row "stop", no sample left, no training sequence).
std::unique_ptr<TrainingData> loadTrainingData(const TrainConfig& cfg, const Tokenizer& tokenizer, EventSink& events,
                                               bool leader);

// The instruction pipeline's options for a config's data section (paths, fields, template, split, bad rows).
SftOptions sftOptionsFor(const TrainConfig& cfg);

// "N bad row(s) skipped" with the first messages, as a warning event (no event when there are none).
void logBadRows(EventSink& events, int64_t badRows, const std::vector<std::string>& messages);

// Throws ConfigError naming the key when the model cannot train on this data: instruction formats need a
// causal LM; classification a sequence-classification model; data.packing needs
// LanguageModel::supportsPacking() (BERT cannot).
void checkModelForData(const DataSection& data, const LanguageModel& model);

// The model's logits for a batch: forwardPacked with position ids, else forward with the padding mask.
torch::Tensor forwardBatch(LanguageModel& model, const TrainBatch& batch);

// The loss summed over the batch's counted predictions: causalLmLossSum for causal LMs, else the model's
// own (mean) loss times lossTokens.
torch::Tensor batchLossSum(const LanguageModel& model, const torch::Tensor& logits, const TrainBatch& batch);

// The batch's summed loss (batchLossSum of the float32 logits) from one forward pass. With `chunked`
// (model.chunked_loss) an LM head's projection and cross-entropy run chunk by chunk (chunked_head_loss.h), so the
// (tokens x vocab) logits never exist; classifiers, and output layers carrying a LoRA adapter, take the logits path.
// chunkRows > 0 fixes the rows per chunk (tests); 0: chunkRowsFor the vocabulary and device. A mixture of experts
// whose config sets output_router_logits adds router_aux_loss_coef x its load-balancing loss x lossTokens.
torch::Tensor forwardLossSum(LanguageModel& model, const TrainBatch& batch, bool chunked, int64_t chunkRows = 0);

// Sum of the causal-LM cross entropy over the batch's counted predictions (logits[:, t] vs labels[:, t+1],
// -100 ignored), in float32. Dividing by the number of counted predictions of the whole accumulated
// (and all-rank) batch gives transformers' loss with num_items_in_batch (docs/data.md).
torch::Tensor causalLmLossSum(const torch::Tensor& logits, const torch::Tensor& labels);

}  // namespace fts
