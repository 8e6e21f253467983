// Sequence classification (data.format "classification"): the model's own loss for its problem type in training;
// in eval the loss's mean over the rows plus accuracy / F1 (labels) or MSE / Pearson (regression) from the logits
// (classification_metrics.h), as the HF Trainer's compute_metrics reports them.
#include "core/train/classification_batches.h"
#include "core/train/classification_metrics.h"
#include "core/train/training_objective.h"

namespace fts {

namespace {

void appendRows(std::vector<float>& to, const torch::Tensor& t) {
    const torch::Tensor c = t.to(torch::kCPU, torch::kFloat32).contiguous();
    to.insert(to.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

class ClassificationObjective final : public TrainingObjective {
public:
    ClassificationObjective(const ClassificationData& labelled, bool chunkedLoss)
        : m_labelled(labelled), m_chunked(chunkedLoss) {}

    torch::Tensor trainingLoss(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        return forwardLossSum(model, batch, m_chunked);  // classifiers take the logits path
    }

    void evaluateBatch(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        const torch::Tensor logits = forwardBatch(model, batch).to(torch::kFloat32);
        addEvalLoss(batchLossSum(model, logits, batch).item<double>(), batch.lossTokens);
        appendRows(m_logitRows, logits);
        appendRows(m_targetRows, batch.labels);
    }

    NamedValues takeEvalMetrics() override {
        NamedValues out = TrainingObjective::takeEvalMetrics();
        for (const auto& [name, value] :
             classificationMetrics(m_labelled.kind, m_labelled.numLabels(), m_logitRows, m_targetRows))
            out["eval_" + name] = value;
        m_logitRows.clear();
        m_targetRows.clear();
        return out;
    }

private:
    const ClassificationData& m_labelled;
    bool m_chunked;
    std::vector<float> m_logitRows, m_targetRows;  // the eval rows' logits and labels, row after row
};

}  // namespace

std::unique_ptr<TrainingObjective> makeClassificationObjective(const ObjectiveSetup& setup) {
    return std::make_unique<ClassificationObjective>(*setup.data.classification(), setup.cfg.model.chunkedLoss);
}

}  // namespace fts
