// Next-token prediction (training.objective "sft", and plain-text LM blocks): the causal-LM cross entropy summed
// over the counted predictions, chunked through the LM head unless model.chunked_loss is off (training_data.h).
#include "core/train/training_objective.h"

namespace fts {

namespace {

class NextTokenObjective final : public TrainingObjective {
public:
    explicit NextTokenObjective(bool chunkedLoss) : m_chunked(chunkedLoss) {}

    torch::Tensor trainingLoss(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        return forwardLossSum(model, batch, m_chunked);
    }

    void evaluateBatch(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        addEvalLoss(forwardLossSum(model, batch, m_chunked).item<double>(), batch.lossTokens);
    }

private:
    bool m_chunked;
};

}  // namespace

std::unique_ptr<TrainingObjective> makeNextTokenObjective(const ObjectiveSetup& setup) {
    return std::make_unique<NextTokenObjective>(setup.cfg.model.chunkedLoss);
}

}  // namespace fts
