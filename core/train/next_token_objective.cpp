// Next-token prediction (training.objective "sft", and plain-text LM blocks): the causal-LM cross entropy summed
// over the counted predictions, chunked through the LM head unless model.chunked_loss is off (training_data.h).
#include "core/train/training_objective.h"

#include "core/model/language_model.h"

namespace fts {

namespace {

class NextTokenObjective final : public TrainingObjective {
public:
    NextTokenObjective(bool chunkedLoss, Communicator& comm) : m_chunked(chunkedLoss), m_comm(comm) {}

    torch::Tensor trainingLoss(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        torch::Tensor loss = forwardLossSum(model, batch, m_chunked);
        if (const auto routing = model.lastRouting(); routing && routing->auxLoss.defined()) {
            const torch::Tensor aux = routing->auxLoss.detach();  // read at logging time: no sync per micro-batch
            m_auxSum = m_auxSum.defined() ? m_auxSum + aux : aux;
            ++m_auxCount;
        }
        return loss;
    }

    // aux_loss: a mixture of experts' load-balancing loss (unweighted), the mean of the micro-batches since the last
    // log, over the ranks.
    NamedValues takeTrainingMetrics() override {
        if (m_auxCount == 0) return {};
        const double mean = m_auxSum.item<double>() / double(m_auxCount);
        m_auxSum = torch::Tensor();
        m_auxCount = 0;
        return meanOverRanks(m_comm, NamedValues{{"aux_loss", mean}});
    }

    void evaluateBatch(LanguageModel& model, const TrainBatch& batch, const std::vector<int64_t>&) override {
        addEvalLoss(forwardLossSum(model, batch, m_chunked).item<double>(), batch.lossTokens);
    }

private:
    bool m_chunked;
    Communicator& m_comm;
    torch::Tensor m_auxSum;
    int64_t m_auxCount = 0;
};

}  // namespace

std::unique_ptr<TrainingObjective> makeNextTokenObjective(const ObjectiveSetup& setup) {
    return std::make_unique<NextTokenObjective>(setup.cfg.model.chunkedLoss, setup.comm);
}

}  // namespace fts
