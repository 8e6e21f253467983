// Preference pairs behind the trainer's data interface: each index is a pair, a micro-batch of P pairs is 2P rows
// [chosen rows; rejected rows] right-padded to the longest, labels -100 on the prompts and the padding (TRL's
// concatenated layout). lossTokens is 1 per micro-batch: the preference losses are means over its pairs, and the
// step engine divides by the micro-batches of the step on all ranks (TRL's gradient accumulation and DDP mean).
// LibTorch header: include it from core/train sources and tests only.
#pragma once
#include "core/data/preference_pairs.h"
#include "core/data/unpaired_examples.h"
#include "core/train/training_data.h"

namespace fts {

class PreferenceTrainingData : public TrainingData {
public:
    PreferenceTrainingData(PreferenceData data, int32_t padId, std::string key);
    int64_t numTrain() const override { return int64_t(m_data.train.size()); }
    int64_t numEval() const override { return int64_t(m_data.eval.size()); }
    TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const override;
    std::string key() const override { return m_key; }
    nlohmann::json summary() const override;
    const PreferenceData& pairs() const { return m_data; }

private:
    PreferenceData m_data;
    int32_t m_padId;
    std::string m_key;
};

// KTO's unpaired examples: a micro-batch of B examples is B rows (each example's prompt + completion); its KL
// sequences (prompt + another example's completion) come as a second batch of B rows, scored without gradient.
class UnpairedTrainingData : public TrainingData {
public:
    UnpairedTrainingData(UnpairedData data, int32_t padId, std::string key);
    int64_t numTrain() const override { return int64_t(m_data.train.size()); }
    int64_t numEval() const override { return int64_t(m_data.eval.size()); }
    TrainBatch batch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const override;
    TrainBatch klBatch(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const;
    torch::Tensor desirable(bool eval, const std::vector<int64_t>& indices, const torch::Device& device) const;
    std::string key() const override { return m_key; }
    nlohmann::json summary() const override;

private:
    UnpairedData m_data;
    int32_t m_padId;
    std::string m_key;
};

// Right-padded rows with their prompts labelled -100 (the micro-batch layout of both classes).
TrainBatch sequencesBatch(const std::vector<const PairSequence*>& rows, int32_t padId, const torch::Device& device);

// The pairs (or KTO's examples) a config's data section describes, tokenized the way training.objective's TRL trainer does (DPO's, or
// CPO / ORPO's); bad rows and dropped pairs are logged on the leader.
std::unique_ptr<TrainingData> loadPreferenceData(const TrainConfig& cfg, const Tokenizer& tokenizer, EventSink& events,
                                                 bool leader);

// ORPO's NLL labels: every real token of the batch (the prompt too), -100 on the padding.
torch::Tensor wholeSequenceLabels(const TrainBatch& batch);

}  // namespace fts
