// Classification rows (data.format "classification") as the trainer's TrainingData: micro-batches padded to the
// longest row as DataCollatorWithPadding pads them (pad id, attention mask 0, token type 0), with the labels the
// model's problem type takes: class ids (B) int64, indicators (B, K) float32 or values (B) float32. The loss of a
// batch counts rows (lossTokens = B), so the step's loss is the mean over the accumulated batch of all ranks.
// LibTorch header: include it from core/train sources and tests only.
#pragma once
#include <memory>

#include <nlohmann/json.hpp>

#include "core/data/classification_dataset.h"
#include "core/train/training_data.h"

namespace fts {

class ClassificationBatches final : public TrainingData {
public:
    ClassificationBatches(ClassificationData data, int32_t padId) : m_data(std::move(data)), m_padId(padId) {}
    int64_t numTrain() const override { return m_data.train.size(); }
    int64_t numEval() const override { return m_data.eval.size(); }
    std::string key() const override { return ""; }
    nlohmann::json summary() const override;
    TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const override;
    const ClassificationData* classification() const override { return &m_data; }

private:
    ClassificationData m_data;
    int32_t m_padId;
};

// Reads data.train / data.eval with the config's columns (data.columns text, text_pair, label; text defaults to
// data.text_field) and the label order of the model folder's config.json when it names the same labels.
std::unique_ptr<TrainingData> loadClassificationData(const TrainConfig& cfg, const Tokenizer& tokenizer,
                                                     EventSink& events, bool leader);

// What config.json must say for a model trained on this data (ModelLoadOptions::configPatch): id2label and
// label2id in the data's label order ("0": name; regression: LABEL_0), problem_type, and no num_labels key
// (transformers derives it from id2label), as save_pretrained writes them.
nlohmann::json classificationConfigPatch(const ClassificationData& data);

}  // namespace fts
